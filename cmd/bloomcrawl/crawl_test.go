package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestCrawlServe crawls the sample site with the HTTP API served from the
// crawl's own process (crawl --serve) and checks, while the crawl still
// owns the store, that the API sees what the crawl stored and shares its
// dedup index: a crawled page's text submitted under a new URL is a
// duplicate of the crawled document; and /metrics reports the crawl's URL
// filter false positives (a filter far too small makes them many).
func TestCrawlServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	site := samplesite.New()
	base, stop, err := site.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg := configs.Default()
	cfg.Seeds = []string{base + "/"}
	cfg.Store.Dir = t.TempDir()
	cfg.Scope.Exclude = []string{site.Manifest().Trap.Exclude}
	cfg.Dedup.Filter, cfg.Dedup.Capacity, cfg.Dedup.TargetFP = "classic", 4, 0.4
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	api := "http://" + ln.Addr().String()
	var checked bool
	var metricFPs string
	inspect := func(db *storage.DB) error {
		checked = true
		resp, err := http.Get(api + "/metrics")
		if err != nil {
			return err
		}
		text, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(text), "\n") {
			if v, ok := strings.CutPrefix(line, "bloomcrawl_crawl_filter_false_positives_total "); ok {
				metricFPs = v
			}
		}
		st, err := db.Stats(context.Background())
		if err != nil {
			return err
		}
		// The web console is served with the API, and shows the crawl.
		for path, want := range map[string]string{"/": "state-finished", "/console/hosts": strings.TrimPrefix(base, "http://")} {
			resp, err := http.Get(api + path)
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
				t.Errorf("console %s: %d, want %q in %.300s", path, resp.StatusCode, want, b)
			}
		}
		var got map[string]any
		getJSON(t, api+"/v1/stats", &got)
		if got["pages"] != float64(st.Pages) || st.Pages == 0 {
			t.Errorf("/v1/stats pages = %v, store has %d", got["pages"], st.Pages)
		}
		// Submit the text of a stored article under a new URL.
		page, _, err := db.PageByURL(base + "/articles/en/what-is-debian")
		if err != nil {
			return err
		}
		body, _ := json.Marshal(map[string]any{"url": "http://copy.example/debian", "title": page.Title, "content": page.Text})
		resp, err = http.Post(api+"/v1/docid", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var ans map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
			return err
		}
		if ans["filterStatus"] != "duplicate" || ans["docId"] != page.DocID.String() {
			t.Errorf("POST /v1/docid of a crawled page's text: %v, want duplicate of %s", ans, page.DocID.String())
		}
		return nil
	}
	st, err := crawlStore(ctx, cfg, crawlRun{quiet: true, stderr: io.Discard, inspect: inspect, serve: ln})
	if err != nil {
		t.Fatal(err)
	}
	if !checked || st.Stored == 0 {
		t.Fatalf("crawl stored %d pages; inspect ran: %v", st.Stored, checked)
	}
	if st.FalsePositives == nil || *st.FalsePositives == 0 || metricFPs != strconv.FormatUint(*st.FalsePositives, 10) {
		t.Errorf("/metrics filter false positives %q, summary %v (want equal, > 0)", metricFPs, st.FalsePositives)
	}
	// The server stops with the crawl.
	if _, err := http.Get(api + "/healthz"); err == nil {
		t.Error("API still answering after the crawl ended")
	}
}

// TestCrawlServeNeedsToken: a public --serve address without a token is a
// usage error before anything starts.
func TestCrawlServeNeedsToken(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"crawl", "--seed", "http://127.0.0.1:1/", "--store", t.TempDir(), "--serve", "0.0.0.0:0"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--token") {
		t.Fatalf("exit %d, stderr %q; want 2 and a hint about --token", code, errb.String())
	}
}

// TestCrawlClusterRefusesUnsupported: every option cluster mode does not
// support is a usage error (exit 2) naming the option, before Redis is
// contacted (the address here answers nothing).
func TestCrawlClusterRefusesUnsupported(t *testing.T) {
	for _, c := range []struct{ yaml, flag, want string }{
		{"dedup:\n  filter: exact\n", "", "dedup.filter exact does not apply in cluster mode"},
		{"", "--audit", "--audit: a cluster's seen-state is exact (64-bit URL fingerprints, not a Bloom filter), so there is no URL filter to audit"},
		{"", "--partitions=0", "--partitions 0: want 1 to 16384"},
	} {
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(cfg, []byte("seeds: [http://127.0.0.1:1/]\n"+c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"crawl", cfg, "--store", t.TempDir(), "--cluster", "redis://127.0.0.1:1/0"}
		if c.flag != "" {
			args = append(args, c.flag)
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q %s: exit %d, stderr %q; want 2 and %q", c.yaml, c.flag, code, errb.String(), c.want)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestCrawlMutexProfile crawls the sample site with --mutexprofile and
// --json: the profile is written (a gzipped pprof protobuf) and the summary
// counts the filter's "seen" answers confirmed in memory (the sample
// site's pages repeat their navigation links).
func TestCrawlMutexProfile(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	site := samplesite.New()
	base, stop, err := site.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	prof, conf := filepath.Join(dir, "mutex.pprof"), filepath.Join(dir, "crawl.yaml")
	if err := os.WriteFile(conf, []byte("scope:\n  exclude: ['"+site.Manifest().Trap.Exclude+"']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(ctx, []string{"crawl", conf, "--seed", base + "/", "--store", filepath.Join(dir, "db"), "--json", "--mutexprofile", prof}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var st struct {
		Fetched    int    `json:"fetched"`
		MemoryHits uint64 `json:"filter_memory_hits"`
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("summary %q: %v", out.String(), err)
	}
	if st.Fetched == 0 || st.MemoryHits == 0 {
		t.Errorf("summary: %d fetched, %d filter_memory_hits; want both > 0", st.Fetched, st.MemoryHits)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("mutex profile: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Errorf("mutex profile: %d bytes, %v", len(b), err)
	}
}

// TestCrawlRefusesOverlongSeed: a 20,000-byte seed is refused with the
// field and the limit before the store is opened, not a crash mid-crawl.
func TestCrawlRefusesOverlongSeed(t *testing.T) {
	var out, errb bytes.Buffer
	seed := "http://127.0.0.1:1/" + strings.Repeat("x", 20_000-len("http://127.0.0.1:1/"))
	dir := filepath.Join(t.TempDir(), "store")
	code := run(context.Background(), []string{"crawl", "--seed", seed, "--store", dir}, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "seeds[0]") || !strings.Contains(errb.String(), "is 20000 bytes, longer than scope.max_url_length (2048)") {
		t.Fatalf("exit %d, stderr %.300q; want a refusal naming seeds[0] and the limit", code, errb.String())
	}
	if len(errb.String()) > 1000 {
		t.Errorf("the refusal is %d bytes long: the seed is shown whole", errb.Len())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("store created for a refused seed: %v", err)
	}
}
