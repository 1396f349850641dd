package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// Defaults of HandlerOptions.
const (
	DefaultMaxBody   = 8 << 20 // bytes per request body
	DefaultMaxBatch  = 1000    // documents per batch
	DefaultListLimit = 100     // pages per GET /v1/pages?host= answer
	MaxListLimit     = 1000    // largest limit= accepted
)

// HandlerOptions configures [NewHandler]. The zero value is the default.
type HandlerOptions struct {
	// Token, when set, is required as "Authorization: Bearer <Token>" on
	// every request except GET /healthz (compared in constant time). Empty:
	// no authentication, which ListenAndServe allows on loopback only.
	Token string
	// MaxBody is the largest request body accepted, in bytes; a larger one
	// is answered 413 and nothing is recorded. Default DefaultMaxBody (8 MiB).
	MaxBody int64
	// MaxBatch is the most documents one POST /v1/docid:batch may carry;
	// more is answered 413. Default DefaultMaxBatch (1000).
	MaxBatch int
	// Logger receives one line per request that fails with a 5xx. nil
	// discards.
	Logger *slog.Logger
	// Seen serves the seen-records routes (/v1/seen/...); nil answers them
	// 503.
	Seen *seen.Records
	// Collectors are registered on /metrics beside the API's own (crawl
	// --serve adds the running crawl's counters).
	Collectors []prometheus.Collector
	// Console, if set, is the web console (package console), served at
	// "/" and under "/console/" behind the same authentication; a browser
	// sends the token once as ?token= and keeps it in a cookie (see
	// consoleLogin). nil: those paths answer 404.
	Console http.Handler
}

func (o HandlerOptions) withDefaults() HandlerOptions {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// handler is what NewHandler returns.
type handler struct {
	svc        *Service
	db         *storage.DB
	o          HandlerOptions
	token      [sha256.Size]byte
	mux        *http.ServeMux
	metrics    *metrics
	statsCache *storage.StatsCache
}

// NewHandler returns the HTTP API over s (the docId service) and db (the
// store queries). s may be nil (no POST routes: 503) and db may be nil (no
// page or stats routes: 503), but not both. The handler is safe for
// concurrent use.
//
// Routes (every answer is JSON except /metrics):
//
//	POST /v1/docid            one document → Response
//	POST /v1/docid:batch      a JSON array of documents, or JSON lines → {"status","results":[Response...]}, in order
//	GET  /v1/pages?url=U      the URL's record and its document (U as recorded, or its canonical form)
//	GET  /v1/pages?host=H[&prefix=P][&since=T][&until=T][&limit=N][&after=C][&text=1]  stored pages, a batch at a time
//	GET  /v1/pages/{docId}    one stored document (add ?html=1 for its HTML) and its kept versions;
//	                          ?version=K: version K of it (continuous crawl; old versions have no HTML)
//	GET  /v1/pages/{docId}/urls  every URL recorded for the document
//	GET  /v1/pages/{docId}/similar[?limit=N]  pages similar to it (MinHash bands, estimated Jaccard; default 10, at most 1000)
//	POST /v1/seen/{key}       {"ids":[...]}: record ids as seen by key → {"status","added","blocks"}
//	POST /v1/seen/{key}:test  {"ids":[...]} → {"status","seen":[...],"new":[...]}, each in input order
//	GET  /v1/seen/{key}       key's record: blocks, counts, expiry (and audit ids when kept)
//	DELETE /v1/seen/{key}     forget key's record → {"status","deleted"}
//	GET  /v1/stats            the store's statistics, as `bloomcrawl query stats --json` (a reading is reused for 10× the time its scan took)
//	GET  /metrics             Prometheus exposition
//	GET  /healthz             {"status":"ok"}, never needs the token
//	GET  /, /console/...      the web console (HTML), when HandlerOptions.Console is set
//
// Errors answer {"status":"error","error":"..."}: 400 bad input, 401 missing
// or wrong token, 403 (no token set) a Host header that is not loopback, 404
// unknown document or URL, 405 wrong method, 413 body or batch too large,
// 415 a request body not sent as JSON, 500 a store failure, 503 a route
// whose backend is absent.
//
// Without a token the handler is meant for loopback only and defends
// against web pages in a browser on the same machine: it answers only
// requests whose Host is localhost or a loopback IP (DNS rebinding), and
// accepts request bodies only as JSON content types (a cross-site form or
// text/plain POST needs no CORS preflight; JSON does, and none is granted).
func NewHandler(s *Service, db *storage.DB, o HandlerOptions) http.Handler {
	if s == nil && db == nil {
		panic("api: NewHandler: nil Service and nil DB")
	}
	h := &handler{svc: s, db: db, o: o.withDefaults(), mux: http.NewServeMux(), statsCache: &storage.StatsCache{DB: db}}
	if h.o.Token != "" {
		h.token = sha256.Sum256([]byte(h.o.Token))
	}
	h.metrics = newMetrics(h)
	h.route("POST /v1/docid", h.docID)
	h.route("POST /v1/docid:batch", h.docIDBatch)
	h.route("GET /v1/pages", h.pages)
	h.route("GET /v1/pages/{docId}", h.page)
	h.route("GET /v1/pages/{docId}/urls", h.pageURLs)
	h.route("GET /v1/pages/{docId}/similar", h.pageSimilar)
	h.route("GET /v1/stats", h.stats)
	h.route("POST /v1/seen/{key}", h.seenPost)
	h.route("GET /v1/seen/{key}", h.seenShow)
	h.route("DELETE /v1/seen/{key}", h.seenDelete)
	h.mux.Handle("GET /metrics", h.metrics.instrument("/metrics", h.metrics.handler()))
	h.mountConsole()
	h.route("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return h
}

// route registers pattern with the request metrics around it.
func (h *handler) route(pattern string, fn http.HandlerFunc) {
	_, path, _ := strings.Cut(pattern, " ")
	h.mux.Handle(pattern, h.metrics.instrument(path, fn))
}

// authenticated tells ListenAndServe that this handler checks a token.
func (h *handler) authenticated() bool { return h.o.Token != "" }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if h.o.Token == "" && !loopbackHost(r.Host) {
		// Without a token the server is only for this machine. A request
		// addressed to another name reached it through DNS rebinding (a web
		// page whose domain now resolves to 127.0.0.1) or a proxy.
		writeError(w, http.StatusForbidden, fmt.Sprintf("Host %q: a server without a token answers only requests addressed to localhost or a loopback IP", r.Host))
		return
	}
	if h.consoleLogin(w, r) {
		return
	}
	if h.o.Token != "" && r.URL.Path != "/healthz" && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bloomcrawl"`)
		h.metrics.unauthorized.Inc()
		writeError(w, http.StatusUnauthorized, "missing or wrong bearer token (send Authorization: Bearer <token>)")
		return
	}
	if _, pattern := h.mux.Handler(r); pattern == "" {
		// No route: ServeMux would answer 404 or 405 in plain text. Run its
		// handler into a recorder to learn which (and the Allow header), and
		// answer in JSON.
		rec := &statusRecorder{header: http.Header{}}
		h.mux.ServeHTTP(rec, r)
		if allow := rec.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		code := rec.code
		if code == 0 {
			code = http.StatusNotFound
		}
		msg := fmt.Sprintf("no route %s %s", r.Method, r.URL.Path)
		if code == http.StatusMethodNotAllowed {
			msg = fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, rec.header.Get("Allow"))
		}
		h.metrics.observeUnrouted(code)
		writeError(w, code, msg)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface (with or without a port).
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopback(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
}

func (h *handler) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return h.cookieAuthorized(r)
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.token[:]) == 1
}

// statusRecorder captures the status and headers ServeMux's own 404/405
// handlers write, discarding their plain-text body.
type statusRecorder struct {
	header http.Header
	code   int
}

func (r *statusRecorder) Header() http.Header { return r.header }
func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return len(b), nil
}

// ---- POST /v1/docid, /v1/docid:batch

// serviceBody reads the body of a docId request; it answers 503 when the
// server has no docId service (and false).
func (h *handler) serviceBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if h.svc == nil {
		writeError(w, http.StatusServiceUnavailable, "no docId service on this server")
		return nil, false
	}
	return h.readBody(w, r)
}

func (h *handler) docID(w http.ResponseWriter, r *http.Request) {
	body, ok := h.serviceBody(w, r)
	if !ok {
		return
	}
	req, err := decodeRequest(body, "request body")
	if err != nil {
		h.svc.invalid.Add(1)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	resp := h.svc.submit(r.Context(), req)
	h.metrics.observeVerdict(resp)
	code := resp.code
	if code == 0 {
		code = http.StatusOK
	}
	if code >= 500 {
		h.o.Logger.Error("POST /v1/docid", "url", req.URL, "err", resp.Error)
	}
	writeJSON(w, code, resp)
}

// BatchResponse is the answer to POST /v1/docid:batch: one Response per
// document, in the order sent. Status is "success" when every document
// succeeded and "error" otherwise (the failing items say why).
type BatchResponse struct {
	Status  string     `json:"status"`
	Count   int        `json:"count"`
	Results []Response `json:"results"`
}

func (h *handler) docIDBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := h.serviceBody(w, r)
	if !ok {
		return
	}
	reqs, code, err := decodeBatch(body, h.o.MaxBatch)
	if err != nil {
		h.svc.invalid.Add(1)
		writeError(w, code, err.Error())
		return
	}
	out := BatchResponse{Status: StatusSuccess, Count: len(reqs), Results: make([]Response, len(reqs))}
	for i, req := range reqs {
		if err := r.Context().Err(); err != nil {
			// The client went away: record no more. Items already answered
			// stay recorded.
			writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("batch interrupted after %d of %d items: %v", i, len(reqs), err))
			return
		}
		resp := h.svc.submit(r.Context(), req)
		h.metrics.observeVerdict(resp)
		if resp.Status != StatusSuccess {
			out.Status = StatusError
			resp.Error = fmt.Sprintf("item %d: %s", i+1, resp.Error)
			h.o.Logger.Error("POST /v1/docid:batch", "item", i+1, "url", req.URL, "err", resp.Error)
		}
		out.Results[i] = resp
	}
	writeJSON(w, http.StatusOK, out)
}

// decodeBatch parses a batch body: a JSON array of objects, or JSON lines
// (one object per non-blank line). Every item is parsed and validated before
// anything is recorded; the first bad one rejects the batch with 400 naming
// it. More than max items is 413.
func decodeBatch(body []byte, max int) ([]Request, int, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, http.StatusBadRequest, errors.New("request body: empty, want a JSON array of documents or JSON lines")
	}
	var reqs []Request
	tooMany := func() (int, error) {
		return http.StatusRequestEntityTooLarge, fmt.Errorf("batch: more than %d documents (the server's --max-batch); split it", max)
	}
	if trimmed[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, http.StatusBadRequest, jsonError("request body (JSON array)", trimmed, err)
		}
		if len(raw) == 0 {
			return nil, http.StatusBadRequest, errors.New("request body: empty array, want at least one document")
		}
		if len(raw) > max {
			c, err := tooMany()
			return nil, c, err
		}
		for i, item := range raw {
			req, err := decodeRequest(item, fmt.Sprintf("item %d", i+1))
			if err != nil {
				return nil, http.StatusBadRequest, err
			}
			reqs = append(reqs, req)
		}
		return reqs, 0, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(trimmed))
	sc.Buffer(make([]byte, 0, 64<<10), len(trimmed)+1)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if len(reqs) == max {
			c, err := tooMany()
			return nil, c, err
		}
		req, err := decodeRequest(text, fmt.Sprintf("line %d", line))
		if err != nil {
			return nil, http.StatusBadRequest, err
		}
		reqs = append(reqs, req)
	}
	if err := sc.Err(); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("request body: line %d: %v", line+1, err)
	}
	return reqs, 0, nil
}

// readBody reads the whole body under the size limit. On failure it has
// already answered (413 over the limit, 400 otherwise).
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := strings.Cut(ct, ";")
		mt = strings.TrimSpace(strings.ToLower(mt))
		// Not text/plain nor form types: a web page can POST those to a
		// loopback server without a CORS preflight (cross-site request
		// forgery); application/json needs the preflight, which this server
		// never grants.
		if mt != "application/json" && mt != "application/x-ndjson" && mt != "application/jsonl" &&
			mt != "application/json-seq" && !strings.HasSuffix(mt, "+json") {
			writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: want application/json (or application/x-ndjson for a batch; with curl: -H 'Content-Type: application/json')", ct))
			return nil, false
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: larger than %d bytes (the server's --max-body)", mbe.Limit))
			return nil, false
		}
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body: %v", err))
		return nil, false
	}
	return body, true
}

// ---- GET /v1/pages...

func (h *handler) needDB(w http.ResponseWriter) bool {
	if h.db == nil {
		writeError(w, http.StatusServiceUnavailable, "no store on this server")
		return false
	}
	return true
}

// storeError answers err from a store query: 404 for storage.ErrNotFound,
// 500 otherwise.
func (h *handler) storeError(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, storage.ErrNotFound) {
		writeError(w, http.StatusNotFound, what+": not found")
		return
	}
	h.o.Logger.Error(r.Method+" "+r.URL.Path, "what", what, "err", err)
	writeError(w, http.StatusInternalServerError, fmt.Sprintf("%s: %v", what, err))
}

// query parses r's query string; a malformed one is answered 400 (and
// false).
func query(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("query string: %v", err))
		return nil, false
	}
	return q, true
}

// viewParams reads the text= (absent: text) and html= (absent: false)
// parameters of a page query; a bad value is answered 400 (and false).
func viewParams(w http.ResponseWriter, q url.Values, text bool) (storage.ViewOptions, bool) {
	var o storage.ViewOptions
	var err error
	if o.Text, err = boolParam(q, "text", text); err == nil {
		o.HTML, err = boolParam(q, "html", false)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return o, false
	}
	return o, true
}

// docOf reads the {docId} of a /v1/pages/{docId}... path: 503 without a
// store, 400 for a bad docId (and false).
func (h *handler) docOf(w http.ResponseWriter, r *http.Request) (storage.DocID, bool) {
	if !h.needDB(w) {
		return 0, false
	}
	id, err := storage.ParseDocID(r.PathValue("docId"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return 0, false
	}
	return id, true
}

// limitParam reads limit= (absent: def; at most MaxListLimit); a bad one
// is answered 400 (and false).
func limitParam(w http.ResponseWriter, q url.Values, def int) (int, bool) {
	s := q.Get("limit")
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxListLimit {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("limit=%q: want an integer from 1 to %d", s, MaxListLimit))
		return 0, false
	}
	return n, true
}

// boolParam reads a boolean query parameter: absent = def.
func boolParam(q url.Values, name string, def bool) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false (1 or 0)", name, v)
	}
	return b, nil
}

// PageAnswer is the answer to GET /v1/pages?url=U: the URL's record and the
// document it maps to (absent when the URL has no document, e.g. a fetch
// error).
type PageAnswer struct {
	Status string            `json:"status"`
	URL    storage.URLView   `json:"url_record"`
	Page   *storage.PageView `json:"page,omitempty"`
}

// ListAnswer is the answer to GET /v1/pages?host=H: up to limit pages in the
// store's order, and the cursor to pass as after= for the next ones (empty
// on the last batch).
type ListAnswer struct {
	Status string             `json:"status"`
	Count  int                `json:"count"`
	Pages  []storage.PageView `json:"pages"`
	Next   string             `json:"next,omitempty"`
}

func (h *handler) pages(w http.ResponseWriter, r *http.Request) {
	if !h.needDB(w) {
		return
	}
	q, ok := query(w, r)
	if !ok {
		return
	}
	view, ok := viewParams(w, q, q.Get("url") != "")
	if !ok {
		return
	}
	if u := q.Get("url"); u != "" {
		for _, k := range []string{"host", "prefix", "since", "until", "after", "limit"} {
			if q.Has(k) {
				writeError(w, http.StatusBadRequest, "url= looks up one URL; it does not combine with "+k+"=")
				return
			}
		}
		p, rec, err := h.db.PageByURL(u)
		if errors.Is(err, storage.ErrNotFound) && rec.URL == "" {
			// URLs are recorded canonical; try U's canonical form.
			if c, cerr := urlfilter.Canonicalize(nil, u); cerr == nil && c.String() != u {
				p, rec, err = h.db.PageByURL(c.String())
			}
		}
		if err != nil && !(errors.Is(err, storage.ErrNotFound) && rec.URL != "") {
			h.storeError(w, r, "url "+strconv.Quote(u), err)
			return
		}
		// A URL recorded without a document (a fetch error, a non-HTML
		// answer) is still an answer: its record, and no page.
		ans := PageAnswer{Status: StatusSuccess, URL: rec.View()}
		if err == nil {
			pv := p.View(view)
			ans.Page = &pv
		}
		writeJSON(w, http.StatusOK, ans)
		return
	}
	o := storage.ListOptions{Host: q.Get("host"), Prefix: q.Get("prefix"), Limit: DefaultListLimit, After: q.Get("after"), Bodies: view.Text || view.HTML}
	var err error
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"since", &o.Since}, {"until", &o.Until}} {
		if v := q.Get(t.name); v != "" {
			if *t.dst, err = time.Parse(time.RFC3339Nano, v); err != nil {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("%s=%q: want an RFC 3339 time such as 2026-11-22T03:00:00Z", t.name, v))
				return
			}
		}
	}
	if o.Host == "" && o.Prefix == "" && o.Since.IsZero() && o.Until.IsZero() {
		writeError(w, http.StatusBadRequest, "GET /v1/pages needs url=U, or host=H, prefix=P, since=T or until=T to list")
		return
	}
	if o.Limit, ok = limitParam(w, q, DefaultListLimit); !ok {
		return
	}
	list, next, err := h.db.List(r.Context(), o)
	if err != nil {
		if errors.Is(err, storage.ErrBadCursor) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("after=%q: not a cursor from a previous answer with the same host, prefix, since and until", o.After))
			return
		}
		h.storeError(w, r, "list pages", err)
		return
	}
	ans := ListAnswer{Status: StatusSuccess, Count: len(list), Pages: make([]storage.PageView, 0, len(list)), Next: next}
	for _, p := range list {
		ans.Pages = append(ans.Pages, p.View(view))
	}
	writeJSON(w, http.StatusOK, ans)
}

// PageByIDAnswer is the answer to GET /v1/pages/{docId}[?version=K]: the
// page (the latest version, or version K: then Page.Version is K and
// Page.FetchedAt when that version was first fetched) and the versions
// kept, oldest first (one for a page that never changed substantially).
type PageByIDAnswer struct {
	Status   string                `json:"status"`
	Page     storage.PageView      `json:"page"`
	Versions []storage.VersionInfo `json:"versions"`
}

// URLsAnswer is the answer to GET /v1/pages/{docId}/urls.
type URLsAnswer struct {
	Status string            `json:"status"`
	DocID  storage.DocID     `json:"doc_id"`
	Count  int               `json:"count"`
	URLs   []storage.URLView `json:"urls"`
}

func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	id, ok := h.docOf(w, r)
	if !ok {
		return
	}
	q, ok := query(w, r)
	if !ok {
		return
	}
	view, ok := viewParams(w, q, true)
	if !ok {
		return
	}
	version := 0
	if s := q.Get("version"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("version=%q: want a version number from 1", s))
			return
		}
		version = n
	}
	versions, err := h.db.Versions(id)
	if err != nil {
		h.storeError(w, r, "docId "+id.String(), err)
		return
	}
	var p storage.Page
	if version == 0 {
		p, err = h.db.Page(id)
	} else {
		p, err = h.db.PageVersion(id, version)
	}
	if errors.Is(err, storage.ErrNotFound) && version != 0 {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		h.storeError(w, r, "docId "+id.String(), err)
		return
	}
	writeJSON(w, http.StatusOK, PageByIDAnswer{Status: StatusSuccess, Page: p.View(view), Versions: versions})
}

func (h *handler) pageURLs(w http.ResponseWriter, r *http.Request) {
	id, ok := h.docOf(w, r)
	if !ok {
		return
	}
	recs, err := h.db.URLs(id)
	if err == nil && len(recs) == 0 {
		err = storage.ErrNotFound
	}
	if err != nil {
		h.storeError(w, r, "docId "+id.String(), err)
		return
	}
	ans := URLsAnswer{Status: StatusSuccess, DocID: id, Count: len(recs), URLs: make([]storage.URLView, 0, len(recs))}
	for _, u := range recs {
		ans.URLs = append(ans.URLs, u.View())
	}
	writeJSON(w, http.StatusOK, ans)
}

// ---- GET /v1/stats

func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	if !h.needDB(w) {
		return
	}
	st, err := h.statsCache.Get()
	if err != nil {
		h.storeError(w, r, "stats", err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// ---- JSON helpers

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]string{"status": StatusError, "error": "encode answer: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// ErrorAnswer is the body of every error answer.
type ErrorAnswer struct {
	Status string `json:"status"` // always "error"
	Error  string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, ErrorAnswer{Status: StatusError, Error: msg})
}
