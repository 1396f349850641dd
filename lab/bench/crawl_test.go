package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// The crawl benchmark runs its tools as child processes; the tests' tools
// are this test binary re-executed with childEnv set to "fetch" (a tiny
// crawler that fetches every link once) or "crawl" (the bloomcrawl crawler
// on a config file, as 'bloomcrawl crawl CONFIG --json').
const childEnv = "BLOOMCRAWL_BENCH_TEST_CHILD"

// init runs a child before any test (or TestMain) would.
func init() {
	switch os.Getenv(childEnv) {
	case "":
		return
	case "fetch":
		os.Exit(childFetch(os.Args[len(os.Args)-1]))
	case "crawl":
		os.Exit(childCrawl(os.Args[len(os.Args)-1]))
	case "clustercrawl":
		os.Exit(childClusterCrawl(os.Args[len(os.Args)-4:]))
	}
	os.Exit(3)
}

var hrefRe = regexp.MustCompile(`href="([^"]+)"`)

// childFetch fetches seed and, breadth first, every link of every HTML
// page once, and prints how many requests it made.
func childFetch(seed string) int {
	queue, seen, n := []string{seed}, map[string]bool{seed: true}, 0
	for len(queue) > 0 && n < 1000 {
		u := queue[0]
		queue = queue[1:]
		resp, err := http.Get(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		n++
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		base, _ := url.Parse(u)
		for _, m := range hrefRe.FindAllStringSubmatch(string(body), -1) {
			ref, err := base.Parse(m[1])
			if err != nil {
				continue
			}
			if s := ref.String(); !seen[s] {
				seen[s] = true
				queue = append(queue, s)
			}
		}
	}
	fmt.Printf("requests: %d\n", n)
	return 0
}

// childCrawl crawls as 'bloomcrawl crawl CONFIG --json' does and prints the
// crawler's stats as JSON.
func childCrawl(cfgPath string) int {
	b, err := os.ReadFile(cfgPath)
	if err == nil {
		var cfg *configs.Config
		if cfg, err = configs.Parse(cfgPath, b); err == nil {
			var db *storage.DB
			if db, err = storage.Open(cfg.Store.Dir, crawler.StoreOptions(cfg.Store)); err == nil {
				defer db.Close()
				var o crawler.Options
				var c *crawler.Crawler
				if o, err = crawler.NewOptions(cfg, crawler.Options{Store: db}, false); err == nil {
					c, err = crawler.New(o)
				}
				if err == nil {
					var st crawler.Stats
					if st, err = c.Run(context.Background()); err == nil {
						err = json.NewEncoder(os.Stdout).Encode(st)
					}
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writeSite writes a linked static site: index.html linking every page,
// each page linking the next, one link to a missing page and one to a
// stylesheet; it returns the number of HTML pages reachable.
func writeSite(t *testing.T, dir string, pages int) int {
	t.Helper()
	var idx strings.Builder
	idx.WriteString("<html><head><title>Index</title><link href=\"style.css\" rel=\"stylesheet\"></head><body><ul>")
	for i := 0; i < pages; i++ {
		fmt.Fprintf(&idx, "<li><a href=\"docs/p%d.html\">page %d</a></li>", i, i)
		body := fmt.Sprintf("<html><head><title>Page %d</title></head><body><main><p>Page %d of the bench site: %s</p>"+
			"<a href=\"p%d.html\">next</a> <a href=\"../index.html\">home</a></main></body></html>",
			i, i, strings.Repeat(fmt.Sprintf("words unique to page %d ", i), 20), (i+1)%pages)
		if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "docs", fmt.Sprintf("p%d.html", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx.WriteString("<li><a href=\"missing.html\">gone</a></li></ul></body></html>")
	for name, body := range map[string]string{"index.html": idx.String(), "style.css": "body{}"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pages + 1 // and index.html
}

func childTool(name, mode string) Tool {
	t := CommandTool(name, os.Args[0]+" {seed}")
	cmd := t.Cmd
	t.Cmd = func(ctx context.Context, seed, dir string) (*exec.Cmd, error) {
		c, err := cmd(ctx, seed, dir)
		if c != nil {
			c.Env = append(os.Environ(), childEnv+"="+mode)
		}
		return c, err
	}
	return t
}

// TestCrawlCounts: the server's own log counts exactly what a tool
// requested. The fetcher asks for "/", each of the 6 pages, index.html (the
// pages link home), the stylesheet and a missing page once each: 10
// requests, 10 distinct URLs, 9 of them HTML page paths ("/", index.html,
// the pages and the missing page).
func TestCrawlCounts(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, 6)
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx, err = exec.LookPath("/usr/sbin/nginx")
	}
	tests := []struct {
		server string
		nginx  string // "" = Go's file server
		tools  int
	}{
		{"go", "", 1},
		{"go", "", 2}, // the log is reset between tools
		{"nginx", nginx, 2},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.server, tc.tools), func(t *testing.T) {
			if tc.server == "nginx" && err != nil {
				if os.Getenv("BLOOMCRAWL_CI") != "" {
					t.Fatalf("nginx is not installed (.ci/run installs nginx-light): %v", err)
				}
				t.Skipf("nginx is not installed: %v", err)
			}
			var tools []Tool
			for i := 0; i < tc.tools; i++ {
				tools = append(tools, childTool(fmt.Sprintf("fetch%d", i), "fetch"))
			}
			rows, err := Crawl(context.Background(), CrawlOptions{Corpora: []string{dir}, Tools: tools, Nginx: tc.nginx, Limit: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.tools {
				t.Fatalf("%d rows, want %d", len(rows), tc.tools)
			}
			for _, r := range rows {
				if r.Requests != 10 || r.Distinct != 10 || r.Pages != 9 || r.Stopped != "" || r.PeakRSSMB <= 0 || r.Corpus != filepath.Base(dir) {
					t.Errorf("%+v: want 10 requests, 10 distinct, 9 pages, a peak RSS", r)
				}
			}
		})
	}
}

// TestCrawlCompleteness: a real bloomcrawl crawl (in a child) next to a
// fetcher named wget: every page the fetcher got with status 200 must be
// stored or mapped, and the crawler's stored count is read from its output.
func TestCrawlCompleteness(t *testing.T) {
	dir := t.TempDir()
	pages := writeSite(t, dir, 5)
	bc := BloomcrawlTool(func(ctx context.Context, args ...string) *exec.Cmd {
		c := exec.CommandContext(ctx, os.Args[0], args[1]) // args: crawl CONFIG --json
		c.Env = append(os.Environ(), childEnv+"=crawl")
		return c
	}, 4)
	rows, err := Crawl(context.Background(), CrawlOptions{Corpora: []string{dir}, Tools: []Tool{childTool("wget", "fetch"), bc}, Limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b := rows[1]
	// Reachable with status 200: "/", /index.html (the same document) and
	// the 5 pages; missing.html is a 404. Stored: the index and the pages.
	if b.Tool != "bloomcrawl" || b.ReachableHTML != pages+1 || b.Missing != 0 || b.Stored != int64(pages) || b.Duplicates != 1 || b.Stopped != "" {
		t.Errorf("bloomcrawl row %+v: want %d reachable, none missing, %d stored, 1 duplicate", b, pages+1, pages)
	}
	if b.Pages < pages {
		t.Errorf("bloomcrawl requested %d pages, want at least %d", b.Pages, pages)
	}
}
