package configs

import (
	"testing"
	"time"
)

// The fetch.render keys: parsed, and a bad value named with its file and
// line.
func TestParseRender(t *testing.T) {
	src := "seeds: [http://127.0.0.1/]\nfetch:\n  render: auto\n  render_rules:\n    - {match: '/app/', render: always}\n  render_concurrency: 2\n  render_timeout: 5s\n  render_scroll: 3\n  render_media: true\n  browser_path: /usr/bin/chromium\n"
	cfg, err := Parse("crawl.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Fetch
	if f.Render != "auto" || len(f.RenderRules) != 1 || f.RenderRules[0] != (RenderRule{Match: "/app/", Render: "always"}) ||
		f.RenderConcurrency != 2 || time.Duration(f.RenderTimeout) != 5*time.Second || f.RenderScroll != 3 || !f.RenderMedia || f.BrowserPath != "/usr/bin/chromium" {
		t.Errorf("fetch: %+v", f)
	}
	if d := Default().Fetch; d.Render != "never" || time.Duration(d.RenderTimeout) != 15*time.Second {
		t.Errorf("defaults: %+v", d)
	}
	bad := []struct{ name, src, want string }{
		{"mode", "fetch:\n  render: sometimes\n", `crawl.yaml:2: fetch.render: "sometimes" is not a render mode (never, auto or always)`},
		{"rule regexp", "fetch:\n  render_rules:\n    - match: '('\n      render: auto\n", "crawl.yaml:3: fetch.render_rules[0].match: invalid regexp \"(\": missing closing ): `(`"},
		{"rule mode", "fetch:\n  render_rules:\n    - match: x\n      render: yes\n", `crawl.yaml:4: fetch.render_rules[0].render: "yes" is not a render mode (never, auto or always)`},
		{"rule match missing", "fetch:\n  render_rules:\n    - render: auto\n", `crawl.yaml:3: fetch.render_rules[0].match: invalid regexp "": is required`},
		{"concurrency", "fetch:\n  render_concurrency: 65\n", "crawl.yaml:2: fetch.render_concurrency: must be between 0 (half the cores) and 64"},
		{"timeout", "fetch:\n  render_timeout: 0s\n", "crawl.yaml:2: fetch.render_timeout: must be > 0"},
		{"scroll", "fetch:\n  render_scroll: -1\n", "crawl.yaml:2: fetch.render_scroll: must be between 0 and 50"},
		{"unknown", "fetch:\n  render_scrol: 1\n", "crawl.yaml:2: fetch.render_scrol: unknown field (did you mean render_scroll?)"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("crawl.yaml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if got, want := err.Error(), tt.want; got != want {
				t.Errorf("error:\n got: %s\nwant: %s", got, want)
			}
		})
	}
}
