package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/newssite"
)

// TestContinuousKillResume runs `crawl --continuous --refresh 300ms --json`
// on a news site of two hosts in a child process, kills it with SIGKILL once
// the first articles are fetched, publishes more, and starts it again: the
// restarted crawl refreshes the hubs from the schedule it rebuilt from the
// store (the seeds are already seen: nothing else would fetch them), finds
// the new articles, and fetches no article twice. SIGTERM then stops it
// cleanly with the JSON summary and its refresh counters.
func TestContinuousKillResume(t *testing.T) {
	site, err := newssite.Start(2)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	site.Publish()
	dir := t.TempDir()
	args := []string{"crawl", "--continuous", "--refresh", "300ms", "--store", dir, "--json",
		"--seed", site.Hosts[0].URL("/"), "--seed", site.Hosts[1].URL("/")}
	start := func() (*exec.Cmd, *strings.Builder) {
		a, _ := json.Marshal(args)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childArgsEnv+"="+string(a))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, &out
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	fetchedAll := func() bool {
		for _, h := range site.Hosts {
			for id := 1; id <= h.Articles(); id++ {
				if h.Hits(newssite.ArticlePath(id)) == 0 {
					return false
				}
			}
		}
		return true
	}

	cmd, _ := start()
	waitUntil("the first articles", fetchedAll)
	waitUntil("a 304 from both hubs", func() bool { return site.Hosts[0].NotModified() > 0 && site.Hosts[1].NotModified() > 0 })
	before := site.Hosts[0].Articles()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	site.Publish()
	site.Publish()
	cmd, out := start()
	waitUntil("the articles published while it was down", fetchedAll)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() > 0) {
		t.Fatalf("after SIGTERM: %v", err)
	}
	var st crawler.Stats
	if jerr := json.Unmarshal([]byte(out.String()), &st); jerr != nil {
		t.Fatalf("summary after SIGTERM: %v in %q", jerr, out.String())
	}
	if st.Refreshed < 2 || st.ResumedURLs == 0 {
		t.Errorf("restarted crawl's summary: refreshed %d, resumed URLs %d; want the hubs refreshed from the stored schedule", st.Refreshed, st.ResumedURLs)
	}
	// An article whose fetch was in flight at the kill may be fetched
	// again (its commit was lost); those published after it, exactly once.
	for hi, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			n := h.Hits(newssite.ArticlePath(id))
			if n != 1 && (id > before || n > 2) {
				t.Errorf("host %d article %d fetched %d times, want 1", hi, id, n)
			}
		}
	}
	// The hubs changed while the crawl was down (two articles more): the
	// refresh after the restart made a new version of each, and the
	// first one (one story listed) is still readable from the store.
	if !strings.Contains(out.String(), `"new_versions":`) || st.NewVersions < 2 {
		t.Errorf("summary: new_versions %d, want >= 2 (both hubs)\n%s", st.NewVersions, out.String())
	}
	q, stderr, code := runQ(t, "--store", dir, "--json", "url", site.Hosts[0].URL("/"))
	var rec struct {
		URL struct {
			DocID    string `json:"doc_id"`
			Versions int    `json:"versions"`
		} `json:"url_record"`
	}
	if err := json.Unmarshal([]byte(q), &rec); err != nil || code != 0 || rec.URL.Versions < 2 {
		t.Fatalf("query url of the hub: exit %d %s, %v\n%s", code, stderr, err, q)
	}
	q, stderr, code = runQ(t, "--store", dir, "doc", rec.URL.DocID, "--version", "1", "--text")
	if code != 0 || !strings.Contains(q, "Latest news of host 0: 1 stories.") {
		t.Errorf("query doc %s --version 1: exit %d %s\n%s", rec.URL.DocID, code, stderr, q)
	}
	q, _, _ = runQ(t, "--store", dir, "doc", rec.URL.DocID, "--text")
	if !strings.Contains(q, "Latest news of host 0: 3 stories.") || !strings.Contains(q, "versions kept") {
		t.Errorf("query doc %s (the latest): \n%s", rec.URL.DocID, q)
	}
}
