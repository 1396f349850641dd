package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Continuous crawling in cluster mode: the refresh schedule belongs to
// the partitions and lives in Redis (package cluster, schedule.go), so it
// moves with a partition's lease. The rules are the same on every node
// (recrawl.*, refresher.interval); what differs from one node is where the
// schedule is kept and where a page's last fetch is known:
//
//   - after a fetch of a URL a rule matches, the node writes the URL's next
//     due time and a record of the fetch (schedRecord: validators, docId,
//     text hash, the node that stores the page) to the URL's partition,
//     before the entry's acknowledgement (redisQueue.rescheduled);
//   - the owner of a partition queues what falls due into the partition's
//     stream (clusterSchedule.run), the record riding in the entry;
//   - the node that takes a refresh entry (the partition's owner) sends a
//     conditional GET with the record's validators. With the page in its
//     own store (it fetched it last, the common case) a refresh is what it
//     is on one node (304, edit, new version); after a hand-over the page
//     is in another node's store: the new owner stores the new text as
//     the URL's document (the same docId, through the document log) and
//     counts it changed when its text hash differs from the record's.
//     Old versions stay in the store of the node that kept them.

// scheduleNode is the part of *cluster.Node a continuous crawl needs in
// cluster mode.
type scheduleNode interface {
	ScheduleAfter(dep *cluster.Pending, items []cluster.Scheduled) *cluster.Pending
	QueueDue(ctx context.Context, now time.Time, limit int) (int, time.Time, error)
	ScheduleRecords(ctx context.Context, urls []string) ([]string, error)
	ScheduleAbsent(ctx context.Context, items []cluster.Scheduled) (int, error)
	Name() string
}

// clusterSchedule is a cluster node's side of the refresh schedule.
type clusterSchedule struct {
	rules *refresher // the intervals; its own schedule is not used
	node  scheduleNode
	q     *redisQueue
	log   *slog.Logger
	found []cluster.Scheduled // restored: what this store schedules, until offered
	// the URLs queueModified made due, with the lastmod that did, until
	// their refresh is committed (a URL queued or in flight has no record
	// in the schedule: a sitemap read meanwhile must not queue it again)
	lastmodQueued sync.Map
}

// useClusterSchedule moves a continuous crawl's schedule to the cluster:
// c.refresh (the one-node schedule) is replaced by c.sched.
func (c *Crawler) useClusterSchedule() error {
	q, ok := c.queue.(*redisQueue)
	node, ok2 := c.o.Cluster.(scheduleNode)
	if !ok || !ok2 {
		return errors.New("crawler: recrawl.continuous: this cluster backend keeps no refresh schedule")
	}
	c.sched = &clusterSchedule{rules: c.refresh, node: node, q: q, log: c.log}
	q.sched, c.refresh = c.sched, nil
	return nil
}

// schedRecord is what the partition's schedule keeps of a URL's last
// fetch, handed back with its refresh entry.
type schedRecord struct {
	fetched    time.Time
	docID      storage.DocID
	dup        bool // docID is another URL's document
	sitemap    bool // read as a sitemap
	hash       uint64
	validators storage.Validators
	lastmod    time.Time // a sitemap's lastmod recorded for it
	node       string    // the node whose store holds the page
}

// encode: fields separated by 0x1f (a URL's validators hold none).
func (r schedRecord) encode() string {
	flags := ""
	if r.dup {
		flags += "d"
	}
	if r.sitemap {
		flags += "s"
	}
	var lm int64
	if !r.lastmod.IsZero() {
		lm = r.lastmod.UnixMilli()
	}
	return strings.Join([]string{strconv.FormatInt(r.fetched.UnixMilli(), 36), strconv.FormatUint(uint64(r.docID), 36), flags,
		strconv.FormatUint(r.hash, 36), r.validators.ETag, r.validators.LastModified, strconv.FormatInt(lm, 36), r.node}, "\x1f")
}

func decodeSchedRecord(s string) (schedRecord, bool) {
	f := strings.Split(s, "\x1f")
	if len(f) != 8 {
		return schedRecord{}, false
	}
	var r schedRecord
	fetched, err1 := strconv.ParseInt(f[0], 36, 64)
	doc, err2 := strconv.ParseUint(f[1], 36, 64)
	hash, err3 := strconv.ParseUint(f[3], 36, 64)
	lm, err4 := strconv.ParseInt(f[6], 36, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return schedRecord{}, false
	}
	r.fetched, r.docID, r.hash = time.UnixMilli(fetched), storage.DocID(doc), hash
	r.dup, r.sitemap = strings.Contains(f[2], "d"), strings.Contains(f[2], "s")
	r.validators = storage.Validators{ETag: f[4], LastModified: f[5]}
	if lm != 0 {
		r.lastmod = time.UnixMilli(lm)
	}
	r.node = f[7]
	return r, true
}

// refreshField reads a referrer field written by cluster.QueueDue: the
// refresh's due time and record.
func refreshField(field string) (time.Time, schedRecord, bool) {
	rest, ok := strings.CutPrefix(field, cluster.RefreshMark)
	if !ok {
		return time.Time{}, schedRecord{}, false
	}
	at, rec, ok := strings.Cut(rest, "\x00")
	ms, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil {
		return time.Time{}, schedRecord{}, false
	}
	r, ok := decodeSchedRecord(rec)
	return time.UnixMilli(ms), r, ok
}

// queueHints is entryHints for any entry of the cluster's streams: a
// refresh entry has no referrer (a refreshed page counts as a seed), a
// sitemap's refresh is read as a sitemap, and the lastmod a sitemap gave
// a URL stays with it (its record keeps it after the fetch).
func queueHints(field string) (string, *frontier.Hints) {
	if _, rec, ok := refreshField(field); ok {
		h := &frontier.Hints{Sitemap: rec.sitemap, LastMod: rec.lastmod}
		if *h == (frontier.Hints{}) {
			h = nil
		}
		return "", h
	}
	return entryHints(field)
}

// refreshOf returns the refresh record of entry seq, if it is a refresh.
func (q *redisQueue) refreshOf(seq uint64) (time.Time, schedRecord, bool) {
	v, ok := q.tasks.Load(seq)
	if !ok {
		return time.Time{}, schedRecord{}, false
	}
	return refreshField(v.(cluster.Task).Referrer)
}

// taken reports whether e is a refresh, whether it is behind schedule
// (fetched over an interval after it was due), and the URL's last fetch
// for the conditional GET and the comparison: this store's record when
// it has one (with no validators if another node fetched the URL since:
// the page is fetched whole to bring this store's copy up to date), else
// the schedule's record, naming the node that stores the page (Node).
func (s *clusterSchedule) taken(e frontier.Entry, store pageStore, now time.Time) (refresh, behind bool, prev *storage.URLRecord, err error) {
	due, rec, ok := s.q.refreshOf(e.Seq)
	if !ok {
		return false, false, nil, nil
	}
	every := s.rules.interval(e.URL)
	behind = every > 0 && now.Sub(due) > every
	local, err := store.URLRecord(e.URL)
	switch {
	case err == nil:
		if rec.fetched.After(local.FetchedAt.Add(time.Second)) {
			local.Validators = storage.Validators{}
		}
		return true, behind, &local, nil
	case errors.Is(err, storage.ErrNotFound):
		node := rec.node
		if node == "" || node == s.node.Name() {
			node = "?" // not in this store whatever the record says
		}
		return true, behind, &storage.URLRecord{URL: e.URL, DocID: rec.docID, Duplicate: rec.dup, FetchedAt: rec.fetched,
			Validators: rec.validators, Hints: storage.Hints{LastMod: rec.lastmod}, Node: node}, nil
	default:
		return false, false, nil, fmt.Errorf("crawler: refresh %s: %w", e.URL, err)
	}
}

// checkRefreshed is the content-dedup verdict of a refreshed page: on one
// node the deduper's; in cluster mode the deduper is fed by the document
// log only (clusterDedup), so the URL keeps the document its record
// names, and only the signature is computed.
func (c *Crawler) checkRefreshed(url, canonical string, doc *Document, prev *storage.URLRecord) contentdedup.Verdict {
	if c.sched == nil {
		return c.o.Dedup.CheckCanonical(url, canonical, doc.Title, doc.Text)
	}
	sig, _ := c.o.Dedup.Prepare(doc.Title, doc.Text)
	return contentdedup.Verdict{DocID: uint64(prev.DocID), Duplicate: true, Reason: contentdedup.ReasonURL, MatchURL: url, Sig: sig}
}

// handedOver reports whether a refreshed page's last version is in
// another node's store (its partition changed hands): then it is stored
// here through the document log (judge) as its URL's document, and
// counted changed when its text differs from the version the schedule's
// record describes.
func (c *Crawler) handedOver(e frontier.Entry, doc *Document, prev *storage.URLRecord) bool {
	if c.sched == nil || prev.Node == "" || prev.Duplicate {
		return false
	}
	if _, rec, ok := c.sched.q.refreshOf(e.Seq); ok && rec.hash != 0 && rec.hash != textHash(doc.Title, doc.Text) {
		c.changed.Add(1)
	}
	return true
}

func textHash(title, text string) uint64 {
	h := xxhash.New()
	h.WriteString(title)
	h.WriteString("\x00")
	h.WriteString(text)
	return h.Sum64()
}

// rescheduled writes, for an entry of a URL a refresh rule matches, its
// next due time (now + its interval + its stagger) and the record of
// this fetch to its partition's schedule, and returns what the entry's
// acknowledgement must wait for: dep (its links' admission) and that
// write. Other entries: dep.
func (q *redisQueue) rescheduled(dep *cluster.Pending, e frontier.Entry, t cluster.Task, cm storage.Commit) *cluster.Pending {
	s := q.sched
	if s == nil {
		return dep
	}
	if strings.HasPrefix(t.Referrer, cluster.RefreshMark) {
		s.lastmodQueued.Delete(e.URL)
	}
	every := s.rules.interval(e.URL)
	if every <= 0 {
		return dep
	}
	_, rec, _ := refreshField(t.Referrer)
	now := time.Now()
	rec.fetched = now
	rec.sitemap = e.Hints != nil && e.Hints.Sitemap
	self := s.node.Name()
	switch {
	case cm.Page != nil:
		p := cm.Page
		rec.docID, rec.dup, rec.hash, rec.validators, rec.node = p.DocID, false, textHash(p.Title, p.Text), p.Validators, self
		rec.lastmod = p.Hints.LastMod
	case cm.URL != nil:
		u := cm.URL
		if u.DocID != 0 {
			rec.docID, rec.dup = u.DocID, u.Duplicate
		}
		rec.validators, rec.lastmod = u.Validators, u.Hints.LastMod
		rec.node = self
		if u.Node != "" {
			rec.node = u.Node
		}
		if cm.Update != nil {
			rec.hash = textHash(cm.Update.Title, cm.Update.Text)
		}
	}
	return s.node.ScheduleAfter(dep, []cluster.Scheduled{{URL: e.URL, Due: now.Add(every + stagger(e.URL, every)), Record: rec.encode()}})
}

// run queues the refreshes of this node's partitions as they fall due,
// until ctx ends: it looks every 250 ms (a partition taken over, a due
// time another node wrote) or when the next one is due, if sooner.
func (s *clusterSchedule) run(ctx context.Context) error {
	const poll, limit = 250 * time.Millisecond, 1000
	for ctx.Err() == nil {
		n, next, err := s.node.QueueDue(ctx, time.Now(), limit)
		wait := poll
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			s.log.Warn("cluster: queue due refreshes", "err", err)
			wait = time.Second
		case n >= limit:
			continue
		case !next.IsZero():
			wait = min(wait, max(time.Until(next), 5*time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// queueModified is queueModified (sitemapcrawl.go) in cluster mode: a URL
// of cands (a sitemap's, read by the owner of its partition) whose
// lastmod is newer than its last fetch and than the lastmod recorded for
// it is made due now, whatever its schedule. Its last fetch is the
// schedule's record (a URL a rule matches), else this store's record (a
// URL fetched once, here: the owner of a partition fetches its URLs); a
// URL fetched by another node and on no schedule is not compared. One
// read of the schedule's records per sitemap, one write of the due ones.
func (s *clusterSchedule) queueModified(ctx context.Context, c *Crawler, cands []frontier.Candidate) error {
	var urls []string
	var lms []time.Time
	for _, cand := range cands {
		if cand.Hints == nil || cand.Hints.Sitemap || cand.Hints.LastMod.IsZero() {
			continue
		}
		urls, lms = append(urls, cand.URL), append(lms, cand.Hints.LastMod)
	}
	if len(urls) == 0 {
		return nil
	}
	recs, err := s.node.ScheduleRecords(ctx, urls)
	if err != nil {
		return fmt.Errorf("crawler: %w", err)
	}
	now := time.Now()
	var due []cluster.Scheduled
	var dueLM []time.Time
	for i, u := range urls {
		lm := lms[i]
		if v, ok := s.lastmodQueued.Load(u); ok && !lm.After(v.(time.Time)) {
			continue // queued for this lastmod, not yet fetched
		}
		r, ok := decodeSchedRecord(recs[i])
		if !ok {
			local, err := c.o.Store.URLRecord(u)
			if errors.Is(err, storage.ErrNotFound) {
				continue // not fetched here (or not yet)
			}
			if err != nil {
				return fmt.Errorf("crawler: lastmod of %s: %w", u, err)
			}
			if local.Hints.Sitemap || local.FetchedAt.IsZero() {
				continue
			}
			r = schedRecord{fetched: local.FetchedAt, docID: local.DocID, dup: local.Duplicate, validators: local.Validators,
				lastmod: local.Hints.LastMod, node: s.node.Name()}
		}
		if r.sitemap || !lm.After(r.fetched) || !lm.After(r.lastmod) {
			continue
		}
		r.lastmod = lm
		due = append(due, cluster.Scheduled{URL: u, Due: now, Record: r.encode()})
		dueLM = append(dueLM, lm)
	}
	if len(due) == 0 {
		return nil
	}
	for i := range due {
		s.lastmodQueued.Store(due[i].URL, dueLM[i])
	}
	if _, err := s.node.ScheduleAfter(nil, due).Wait(ctx); err != nil {
		for i := range due {
			s.lastmodQueued.Delete(due[i].URL)
		}
		return fmt.Errorf("crawler: %w", err)
	}
	c.lastmodDue.Add(int64(len(due)))
	return nil
}

// restored notes a URL record read back from this store at start (a URL
// a rule matches, fetched, not a redirect alias): offerRestored puts it on
// the cluster's schedule unless it is there already, so a continuous run
// on the stores of an earlier run (one-shot, or continuous on a Redis
// started afresh) refreshes their pages as one node would.
func (s *clusterSchedule) restored(rec storage.URLRecord) {
	if rec.Reason == "redirect" || rec.FetchedAt.IsZero() {
		return
	}
	every := s.rules.interval(rec.URL)
	if every <= 0 {
		return
	}
	node := s.node.Name()
	if rec.Node != "" {
		node = rec.Node
	}
	r := schedRecord{fetched: rec.FetchedAt, docID: rec.DocID, dup: rec.Duplicate, sitemap: rec.Hints.Sitemap,
		validators: rec.Validators, lastmod: rec.Hints.LastMod, node: node}
	s.found = append(s.found, cluster.Scheduled{URL: rec.URL, Due: rec.FetchedAt.Add(every + stagger(rec.URL, every)), Record: r.encode()})
}

// offerRestored offers what restored found.
func (s *clusterSchedule) offerRestored(ctx context.Context) error {
	found := s.found
	s.found = nil
	if len(found) == 0 {
		return nil
	}
	n, err := s.node.ScheduleAbsent(ctx, found)
	if err != nil {
		return fmt.Errorf("crawler: %w", err)
	}
	s.log.Info("cluster refresh schedule: this store's URLs offered", "urls", len(found), "added", n)
	return nil
}
