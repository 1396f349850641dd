package console

import (
	"bufio"
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// maxHostRows bounds the hosts table (after filtering and sorting).
const maxHostRows = 500

// hostRow is one row of the hosts table.
type hostRow struct {
	crawler.HostState
	Wait time.Duration // until the next request may start (0: now)
}

// hostsView is the hosts page's data.
type hostsView struct {
	Rows      []hostRow
	Other     crawler.OtherHosts // hosts whose counters the crawl no longer keeps one by one
	Total     int                // hosts before the row limit
	Shown     int
	Filter    string
	Sort, Dir string
	Status    []kv
	Types     []kv
	Skips     []crawler.Skip
	Reason    string   // skips shown: "" = all
	Reasons   []string // reasons present
	SkipTotal int
}

type kv struct {
	Key   string
	Count int64
}

// hostSorts are the columns the hosts table sorts by.
var hostSorts = map[string]func(a, b *hostRow) int{
	"host":    func(a, b *hostRow) int { return strings.Compare(a.Host, b.Host) },
	"queued":  func(a, b *hostRow) int { return cmp.Compare(a.Queued, b.Queued) },
	"active":  func(a, b *hostRow) int { return cmp.Compare(a.Active, b.Active) },
	"fetched": func(a, b *hostRow) int { return cmp.Compare(a.Fetched, b.Fetched) },
	"errors":  func(a, b *hostRow) int { return cmp.Compare(a.Errors, b.Errors) },
	"bytes":   func(a, b *hostRow) int { return cmp.Compare(a.Bytes, b.Bytes) },
	"delay":   func(a, b *hostRow) int { return cmp.Compare(a.Delay, b.Delay) },
	"next":    func(a, b *hostRow) int { return cmp.Compare(a.Wait, b.Wait) },
}

func (c *Console) hostsPage(w http.ResponseWriter, r *http.Request) {
	if c.o.Crawl == nil {
		c.fail(w, http.StatusNotFound, errors.New("no crawl is running here: the hosts view shows a running crawl (crawl --serve)"))
		return
	}
	q := r.URL.Query()
	v := hostsView{Filter: strings.TrimSpace(q.Get("q")), Sort: q.Get("sort"), Dir: q.Get("dir"), Reason: q.Get("reason")}
	if _, ok := hostSorts[v.Sort]; !ok {
		v.Sort = "queued"
	}
	if v.Dir != "asc" {
		v.Dir = "desc"
	}
	now := time.Now()
	for _, h := range c.o.Crawl.Hosts() {
		if v.Filter != "" && !strings.Contains(strings.ToLower(h.Host), strings.ToLower(v.Filter)) {
			continue
		}
		row := hostRow{HostState: h}
		if h.ReadyAt.After(now) {
			row.Wait = h.ReadyAt.Sub(now)
		}
		v.Rows = append(v.Rows, row)
	}
	less := hostSorts[v.Sort]
	slices.SortStableFunc(v.Rows, func(a, b hostRow) int {
		d := less(&a, &b)
		if v.Dir == "desc" {
			d = -d
		}
		if d == 0 {
			d = strings.Compare(a.Host, b.Host)
		}
		return d
	})
	v.Total = len(v.Rows)
	if len(v.Rows) > maxHostRows {
		v.Rows = v.Rows[:maxHostRows]
	}
	v.Shown = len(v.Rows)
	b := c.o.Crawl.Breakdown()
	v.Other = b.OtherHosts
	for code, n := range b.Status {
		v.Status = append(v.Status, kv{strconv.Itoa(code), n})
	}
	for t, n := range b.ContentType {
		if t == "" {
			t = "(none)"
		}
		v.Types = append(v.Types, kv{t, n})
	}
	byCount := func(a, b kv) int {
		if d := cmp.Compare(b.Count, a.Count); d != 0 {
			return d
		}
		return strings.Compare(a.Key, b.Key)
	}
	slices.SortFunc(v.Status, byCount)
	slices.SortFunc(v.Types, byCount)
	seen := map[string]bool{}
	for _, s := range c.o.Crawl.Skipped() {
		if !seen[s.Reason] {
			seen[s.Reason] = true
			v.Reasons = append(v.Reasons, s.Reason)
		}
		if v.Reason == "" || s.Reason == v.Reason {
			v.Skips = append(v.Skips, s)
		}
	}
	slices.Sort(v.Reasons)
	v.SkipTotal = len(v.Skips)
	c.render(w, r, "hosts", "Frontier and hosts", v)
}

// queueText writes the queue as text: one line per entry, "URL depth
// referrer", in queue order.
func (c *Console) queueText(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="queue.txt"`)
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	var after uint64
	for {
		if r.Context().Err() != nil {
			return
		}
		batch, err := c.o.Store.QueueScan(after, 10_000)
		if err != nil {
			bw.WriteString("# error reading the queue: " + err.Error() + "\n")
			return
		}
		for _, e := range batch {
			bw.WriteString(e.URL)
			bw.WriteByte('\t')
			bw.WriteString(strconv.Itoa(e.Depth))
			bw.WriteByte('\t')
			bw.WriteString(e.Referrer)
			bw.WriteByte('\n')
			after = e.Seq
		}
		if len(batch) < 10_000 {
			return
		}
	}
}
