package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/console"
	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// TestHostsOtherHosts crawls six loopback hosts (wired as the crawl
// command wires a crawl: crawler.OpenComponents) with room for the
// counters of two: the hosts view lists two hosts and an "other hosts"
// row that sums the four pushed out.
func TestHostsOtherHosts(t *testing.T) {
	const hosts, limit = 6, 2
	var links []string
	for i := 1; i < hosts; i++ {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>host %d</title></head><body><p>page of host number %d, words %d</p></body></html>", i, i, i*7)
		}))
		t.Cleanup(s.Close)
		links = append(links, fmt.Sprintf(`<a href="%s/">host %d</a>`, s.URL, i))
	}
	seed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>seed</title></head><body><p>the seed links every host</p>%s</body></html>", strings.Join(links, " "))
	}))
	t.Cleanup(seed.Close)
	cfg := configs.Default()
	cfg.Seeds = []string{seed.URL + "/"}
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Dedup.Capacity = 10_000
	cfg.Store.Dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	parts, err := crawler.OpenComponents(ctx, cfg, crawler.OpenOptions{HostCounters: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := parts.Close(ctx, nil); err != nil {
			t.Error(err)
		}
	}()
	db, opts := parts.Store, parts.Options
	opts.Grace = time.Second
	c, err := crawler.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Fetched != hosts {
		t.Fatalf("fetched %d pages, want %d", st.Fetched, hosts)
	}
	srv := httptest.NewServer(console.New(ctx, console.Options{Store: db, Crawl: c}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/console/hosts")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /console/hosts: %s %.300s", resp.Status, page)
	}
	if n := strings.Count(page, `<td class="url">127.0.0.1:`); n != limit {
		t.Errorf("the hosts view lists %d hosts, want %d", n, limit)
	}
	row := regexp.MustCompile(`(?s)<tr id="other-hosts".*?<td>(\d+) other hosts</td>.*?<td class="n">(\d+)</td>`).FindStringSubmatch(page)
	if row == nil {
		t.Fatalf("no other-hosts row in the hosts view: %.3000s", page)
	}
	if want := fmt.Sprint(hosts - limit); row[1] != want || row[2] != want {
		t.Errorf("other hosts row: %s hosts, %s fetched; want %s and %s", row[1], row[2], want, want)
	}
}
