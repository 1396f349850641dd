package crawler

import (
	"fmt"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestRefresherSchedule: seeds follow seeds_every, other URLs the first
// matching rule; due times are the fetch time + interval + a stagger below
// a tenth of it (spread over many hubs of one host); restored records are
// scheduled from their fetch time (sitemaps and redirect aliases not);
// a URL still queued at start is not due; a refresh fetched more than one
// interval after it was due counts as behind schedule.
func TestRefresherSchedule(t *testing.T) {
	cfg := configs.Default()
	cfg.Recrawl.Continuous = true
	cfg.Recrawl.SeedsEvery = configs.Duration(time.Minute)
	cfg.Recrawl.Rules = []configs.RecrawlRule{
		{Match: `/section/`, Every: configs.Duration(10 * time.Second)},
		{Match: `/section/sport/`, Every: configs.Duration(time.Hour)}, // shadowed by the first
	}
	r, err := newRefresher(cfg.Recrawl, []string{"http://e.com/"})
	if err != nil || r == nil {
		t.Fatal(r, err)
	}
	for u, want := range map[string]time.Duration{
		"http://e.com/": time.Minute, "http://e.com/section/sport/": 10 * time.Second, "http://e.com/a/1": 0,
	} {
		if got := r.interval(u); got != want {
			t.Errorf("interval(%s) = %v, want %v", u, got, want)
		}
	}
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	offsets := map[time.Duration]bool{}
	for i := range 100 {
		u := fmt.Sprintf("http://e.com/section/%d/", i)
		r.restored(storage.URLRecord{URL: u, FetchedAt: t0, Status: 200})
		s := stagger(u, 10*time.Second)
		if s < 0 || s >= time.Second {
			t.Fatalf("stagger %v outside [0, 1s)", s)
		}
		offsets[s] = true
	}
	if len(offsets) < 90 {
		t.Errorf("100 hubs got %d distinct staggers: not spread", len(offsets))
	}
	r.restored(storage.URLRecord{URL: "http://e.com/section/map.xml", FetchedAt: t0, Hints: storage.Hints{Sitemap: true}})
	r.restored(storage.URLRecord{URL: "http://e.com/section/old/", FetchedAt: t0, Reason: "redirect"})
	r.restored(storage.URLRecord{URL: "http://e.com/", FetchedAt: t0})
	r.queuedAtStart("http://e.com/")
	if n, due := r.counts(t0.Add(10 * time.Second)); n != 102 || due != 0 {
		t.Fatalf("counts at +10s = %d scheduled, %d due; want 102 (the hubs, the sitemap, the seed), 0", n, due)
	}
	urls, next, _ := r.popDue(t0.Add(11*time.Second), 1000)
	if len(urls) != 101 || !next.IsZero() {
		t.Fatalf("popDue at +11s: %d URLs, next %v; want the 100 hubs and the sitemap, nothing after", len(urls), next)
	}
	sitemaps := 0
	for _, u := range urls {
		if r.isSitemap(u) != (u == "http://e.com/section/map.xml") {
			t.Errorf("isSitemap(%s) = %v", u, r.isSitemap(u))
		}
		if r.isSitemap(u) {
			sitemaps++
		}
	}
	if sitemaps != 1 {
		t.Errorf("%d sitemaps due, want 1", sitemaps)
	}
	if urls[0] == "http://e.com/section/map.xml" {
		urls = urls[1:]
	}
	// One hub fetched late (more than one interval after due), one on time.
	if refresh, behind := r.taken(urls[0], t0.Add(25*time.Second)); !refresh || !behind {
		t.Errorf("taken 15 s late: refresh %v behind %v", refresh, behind)
	}
	if refresh, behind := r.taken(urls[1], t0.Add(12*time.Second)); !refresh || behind {
		t.Errorf("taken on time: refresh %v behind %v", refresh, behind)
	}
	if refresh, _ := r.taken("http://e.com/", t0); !refresh {
		t.Errorf("a seed queued at start is not taken as a refresh")
	}
	if refresh, _ := r.taken("http://e.com/a/1", t0); refresh {
		t.Errorf("a URL off the schedule taken as a refresh")
	}
	r.fetched(urls[0], t0.Add(25*time.Second), false)
	if _, next, _ := r.popDue(t0.Add(25*time.Second), 1000); !next.After(t0.Add(35 * time.Second)) {
		t.Errorf("next due after a fetch at +25s: %v, want after +35s", next)
	}
}

// TestRefresherCountsDue: counts' walk of the due part of the heap agrees
// with a scan of every item, at many moments over a schedule of 2,000 URLs
// fetched at scattered times, as due URLs are popped and refetched.
func TestRefresherCountsDue(t *testing.T) {
	cfg := configs.Default()
	cfg.Recrawl.Continuous = true
	cfg.Recrawl.Rules = []configs.RecrawlRule{{Match: `/hub/`, Every: configs.Duration(time.Minute)}}
	r, err := newRefresher(cfg.Recrawl, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for i := range 2000 {
		r.fetched(fmt.Sprintf("http://e.com/hub/%d", i), t0.Add(time.Duration(i*7919%3000)*time.Second/100), false)
	}
	scan := func(now time.Time) (due int) {
		for _, it := range r.due {
			if !it.next.After(now) {
				due++
			}
		}
		return due
	}
	sawSome := false
	for step := range 60 {
		now := t0.Add(time.Minute + time.Duration(step)*time.Second)
		n, due := r.counts(now)
		if want := scan(now); due != want || n != 2000 {
			t.Fatalf("step %d: counts = %d scheduled, %d due; scan says %d due of 2000", step, n, due, want)
		}
		sawSome = sawSome || (due > 0 && due < 2000)
		if step%3 == 0 { // queue some and fetch them again
			urls, _, _ := r.popDue(now, 100)
			for _, u := range urls {
				r.taken(u, now)
				r.fetched(u, now, false)
			}
		}
	}
	if !sawSome {
		t.Fatal("no moment with some but not all URLs due: the test does not test")
	}
}
