package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/internal/dedupstore"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// ServiceOptions configures a [Service]. The zero value (or nil) is the
// default.
type ServiceOptions struct {
	// Restored says the Deduper already holds the store's dedup index (the
	// crawler rebuilt it), so NewService must not read the store again.
	// Default false: NewService rebuilds the index from the store.
	Restored bool
	// Now returns the time recorded as a document's FetchedAt. Default
	// time.Now.
	Now func() time.Time
	// Logger receives one line per failed commit. nil discards.
	Logger *slog.Logger
	// Decide, when set, decides each document instead of the Deduper's
	// Check (crawl --serve on a cluster node: through the cluster's
	// document log, crawler.Crawler.DecideDocument); an error answers
	// 503 and records nothing. Default nil: the Deduper decides.
	Decide func(ctx context.Context, url, title, text string) (contentdedup.Verdict, error)
}

// Service is the document-id service: it decides with a
// contentdedup.Deduper and records with a storage.DB. It is safe for
// concurrent use; the Deduper makes each decision atomically, so two
// concurrent near-identical documents get one docId.
type Service struct {
	dedup  *contentdedup.Deduper
	decide func(ctx context.Context, url, title, text string) (contentdedup.Verdict, error) // ServiceOptions.Decide
	db     *storage.DB                                                                      // nil: decide only, record nothing
	now    func() time.Time
	log    *slog.Logger

	// Counters since start, by outcome; read by Counts and the metrics.
	good, duplicate, failed, invalid atomic.Uint64

	stopOnce sync.Once
	stopped  chan struct{} // closed by stop
	stopErr  error         // set before stopped is closed
}

// Stopped is closed when a commit failed because the store's disk is full
// or failing (storage.ErrNoSpace, storage.ErrIO): nothing more can be
// recorded, every later document would fail the same way, and the owner
// should stop taking requests. Err says why.
func (s *Service) Stopped() <-chan struct{} { return s.stopped }

// Err is the error that closed Stopped, or nil.
func (s *Service) Err() error {
	select {
	case <-s.stopped:
		return s.stopErr
	default:
		return nil
	}
}

func (s *Service) stop(err error) {
	s.stopOnce.Do(func() {
		s.stopErr = err
		close(s.stopped)
	})
}

// NewService returns a Service that decides with d and records in db. db may
// be nil: the service then decides and answers but records nothing (an
// in-memory docId service that forgets everything on exit).
//
// Unless o.Restored is set, NewService rebuilds d's index from db: every
// stored document's fingerprints (contentdedup.RestoreDoc), every recorded
// URL → docId (contentdedup.RestoreURL) and every near-duplicate's stored
// signature (contentdedup.RestoreAlias), so that a restarted
// service gives the same answers as before. It returns an error if the store
// cannot be read, or if ctx is cancelled during the rebuild.
func NewService(ctx context.Context, d *contentdedup.Deduper, db *storage.DB, o *ServiceOptions) (*Service, error) {
	if d == nil {
		return nil, errors.New("api: NewService: nil Deduper")
	}
	if o == nil {
		o = &ServiceOptions{}
	}
	s := &Service{dedup: d, decide: o.Decide, db: db, now: o.Now, log: o.Logger, stopped: make(chan struct{})}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if db != nil && !o.Restored {
		if err := Restore(ctx, d, db); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Restore loads everything db knows into d's index (see
// dedupstore.Restore): every stored document's signature, every URL → docId,
// and each near-duplicate's stored content signature. It is what NewService
// does at start-up. Cancelling ctx stops it with ctx.Err().
func Restore(ctx context.Context, d *contentdedup.Deduper, db *storage.DB) error {
	if err := dedupstore.Restore(ctx, d, db, nil); err != nil {
		return fmt.Errorf("api: %w", err)
	}
	return nil
}

// Submit decides req and records it, and returns the service's answer. It
// never panics on bad input: an invalid request (see [Request.Validate])
// answers Status "error" and records nothing.
//
// The document is decided and recorded under its canonical URL (see
// urlfilter.Canonicalize: "HTTP://Example.com:80/a?utm_source=x#top" is
// "http://example.com/a"), as the crawler records fetched pages, so that a
// submitted article and a crawled page with the same URL meet.
//
// Recording, in one storage transaction:
//   - a new document → a storage.Page {URL, Title, Text = content, FetchedAt,
//     the verdict's fingerprints} (storage adds URL → docId, the host and
//     time indexes and the fingerprint entry);
//   - a near-duplicate by title or content → a storage.URLRecord {URL, docId,
//     Duplicate, Reason, Distance, and the verdict's content signature:
//     ContentFP, FPFlags, Sketch, which Restore gives back to the Deduper};
//   - a URL already recorded (reason "url") → nothing new.
//
// If the commit fails, the answer has Status "error" (and the Deduper keeps
// the decision; see the package Caveats); a full disk (HTTP status 507) or
// an I/O error also closes Stopped. ctx bounds the commit.
func (s *Service) Submit(ctx context.Context, req Request) Response {
	if err := req.Validate(); err != nil {
		s.invalid.Add(1)
		return Response{ID: req.ID, Status: StatusError, Error: err.Error(), code: http.StatusBadRequest}
	}
	return s.submit(ctx, req)
}

// SubmitJSON decodes one docId-service request (a JSON object; numbers may be
// strings, as the docId service's original clients send them) and submits it. A malformed or invalid
// request answers Status "error" with a message that starts with where
// ("line 7") and names the field, and records nothing. It is the loop body
// of a JSON-lines reader such as `bloomcrawl dedup --store`:
//
//	for n := 1; sc.Scan(); n++ {
//		enc.Encode(svc.SubmitJSON(ctx, sc.Bytes(), fmt.Sprintf("line %d", n)))
//	}
func (s *Service) SubmitJSON(ctx context.Context, data []byte, where string) Response {
	req, err := decodeRequest(data, where)
	if err != nil {
		s.invalid.Add(1)
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(data, &id) // echo the id when the object has one
		if string(id.ID) == "null" {
			id.ID = nil
		}
		return Response{ID: id.ID, Status: StatusError, Error: err.Error(), code: http.StatusBadRequest}
	}
	return s.submit(ctx, req)
}

// submit is Submit for a request already validated.
func (s *Service) submit(ctx context.Context, req Request) Response {
	u, err := req.canonicalURL()
	if err != nil { // validated before: cannot happen
		s.invalid.Add(1)
		return Response{ID: req.ID, Status: StatusError, Error: err.Error(), code: http.StatusBadRequest}
	}
	var v contentdedup.Verdict
	if s.decide != nil {
		if v, err = s.decide(ctx, u, req.Title, req.Content); err != nil {
			s.failed.Add(1)
			s.log.Error("decide document", "url", u, "err", err)
			return Response{ID: req.ID, Status: StatusError, Error: fmt.Sprintf("decide %s: %v", u, err), code: http.StatusServiceUnavailable}
		}
	} else {
		v = s.dedup.Check(u, req.Title, req.Content)
	}
	resp := Response{
		ID:           req.ID,
		DocID:        storage.DocID(v.DocID).String(),
		FilterStatus: FilterGood,
		FilterReason: string(v.Reason),
		Status:       StatusSuccess,
	}
	if v.Duplicate {
		resp.FilterStatus = FilterDuplicate
		resp.MatchURL = v.MatchURL
		dist := v.Distance
		resp.Distance = &dist
	}
	if s.db != nil {
		if c, ok := s.commitFor(u, req, v); ok {
			if _, err := s.db.Commit(ctx, c); err != nil {
				s.failed.Add(1)
				s.log.Error("record document", "url", u, "docId", resp.DocID, "err", err)
				code := http.StatusInternalServerError
				if errors.Is(err, storage.ErrNoSpace) {
					code = http.StatusInsufficientStorage
				}
				if errors.Is(err, storage.ErrNoSpace) || errors.Is(err, storage.ErrIO) {
					s.stop(err)
				}
				return Response{ID: req.ID, Status: StatusError,
					Error: fmt.Sprintf("record %s as %s: %v", u, resp.DocID, err),
					code:  code}
			}
		}
	}
	if v.Duplicate {
		s.duplicate.Add(1)
	} else {
		s.good.Add(1)
	}
	return resp
}

// commitFor returns the storage commit that records verdict v for req, and
// false when there is nothing new to record.
func (s *Service) commitFor(u string, req Request, v contentdedup.Verdict) (storage.Commit, bool) {
	now := s.now().UTC()
	switch {
	case !v.Duplicate:
		c := storage.Commit{Page: &storage.Page{
			DocID:     storage.DocID(v.DocID),
			URL:       u,
			FetchedAt: now,
			Title:     req.Title,
			Text:      req.Content,
			TitleFP:   v.Sig.Title,
			ContentFP: v.Sig.Content,
			FPFlags:   v.Sig.Flags,
			Sketch:    v.Sig.Sketch.Bytes(),
		}}
		dedupstore.SetSimilarity(c.Page, v.Similar)
		return c, true
	case v.Reason == "url":
		// The URL is already recorded (as a page or a duplicate); writing a
		// duplicate record over it would turn a page's own URL into a
		// "duplicate of itself".
		return storage.Commit{}, false
	default:
		rec := &storage.URLRecord{
			URL:       u,
			DocID:     storage.DocID(v.DocID),
			Duplicate: true,
			Reason:    string(v.Reason),
			Distance:  v.Distance,
			FetchedAt: now,
		}
		dedupstore.SetDuplicateSignature(rec, v.Sig) // title/content steps: RestoreAlias finds it again
		return storage.Commit{URL: rec}, true
	}
}

// Counts reports how many requests Submit has answered since the service
// started, by outcome: new documents, duplicates, commit failures and invalid
// requests. Safe for concurrent use.
func (s *Service) Counts() (good, duplicate, failed, invalid uint64) {
	return s.good.Load(), s.duplicate.Load(), s.failed.Load(), s.invalid.Load()
}

// Len is the number of documents in the dedup index.
func (s *Service) Len() int { return s.dedup.Len() }
