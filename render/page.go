package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Page is one page to render.
type Page struct {
	// URL is the page's URL; the browser's request for it is answered
	// with HTML, not fetched again.
	URL string
	// HTML is the server's response body for URL (UTF-8), and
	// ContentType its Content-Type.
	HTML        []byte
	ContentType string
	// Fetch answers every other request the page makes (scripts, XHR and
	// fetch(), style sheets, frames, a reload). It returns an error to
	// refuse one (out of scope, disallowed by robots.txt); the page sees
	// a failed request. The request's context ends when the render does.
	// It may be called from several goroutines at once. nil refuses all.
	Fetch func(*http.Request) (*http.Response, error)
}

// Result is a rendered page.
type Result struct {
	// HTML is the DOM serialized when the page was quiet (or its time
	// budget nearly spent), with its doctype.
	HTML []byte
	// URL is the page's location at that time (a client-side route may
	// have changed it).
	URL string
	// Routes are the URLs the page pushed with history.pushState or
	// replaceState (absolute, in order, repeats removed).
	Routes []string
	// Requests are the requests answered by Page.Fetch; Refused those it
	// refused (or beyond Options.MaxRequests); Blocked the images, media
	// and fonts refused without a request.
	Requests, Refused, Blocked int
	// Scrolls and Clicks are the scrolls and "load more" clicks made.
	Scrolls, Clicks int
	// TimedOut says the page was still busy when its budget ran out (it
	// was snapshotted as it was).
	TimedOut bool
	// Attempts is 2 when the browser was restarted for this page.
	Attempts int
	// Elapsed is the wall time of the render.
	Elapsed time.Duration
}

// hookJS runs in every document before its own scripts: it records the
// URLs pushed into the history and counts DOM mutations (the quiet test).
const hookJS = `(() => {
  if (window.__bc) return;
  const bc = window.__bc = {routes: [], mut: 0};
  for (const name of ['pushState', 'replaceState']) {
    const orig = history[name];
    history[name] = function (state, title, url) {
      if (url !== undefined && url !== null) {
        try { bc.routes.push(new URL(String(url), location.href).href); } catch (e) {}
      }
      return orig.apply(this, arguments);
    };
  }
  new MutationObserver(ms => { bc.mut += ms.length; })
    .observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
})();`

// stateJS reports what the quiet test needs.
const stateJS = `[document.readyState, window.__bc ? window.__bc.mut : 0, document.documentElement ? document.documentElement.scrollHeight : 0]`

// snapshotJS serializes the page.
const snapshotJS = `(() => {
  const d = document.doctype;
  const doctype = d ? '<!DOCTYPE ' + d.name + (d.publicId ? ' PUBLIC "' + d.publicId + '"' : '') + (d.systemId ? ' "' + d.systemId + '"' : '') + '>\n' : '';
  return JSON.stringify({html: doctype + (document.documentElement ? document.documentElement.outerHTML : ''),
    url: location.href, routes: window.__bc ? window.__bc.routes : []});
})()`

// clickJS clicks the first visible "load more" control (again: a list's
// button stays until the list ends): a
// button (or role=button, or a link going nowhere: "#", javascript:) whose
// text asks for more. A link to another URL is not clicked: the crawl
// follows it as a link.
const clickJS = `(() => {
  const re = /^(load|show|view|see|read)\s+more\b|^more(\s+results|\s+items|\s+posts)?$|^next\s+page$|加载更多|查看更多|显示更多|更多/i;
  for (const el of document.querySelectorAll('button, [role=button], a, input[type=button]')) {
    const t = ((el.innerText || el.value || '') + '').trim();
    if (t.length === 0 || t.length > 40 || !re.test(t)) continue;
    if (el.tagName === 'A') {
      const h = (el.getAttribute('href') || '').trim();
      if (h !== '' && h !== '#' && !h.startsWith('javascript:')) continue;
    }
    if (el.tagName === 'BUTTON' && el.type === 'submit' && el.form) continue;
    if (el.disabled || el.getClientRects().length === 0) continue;
    el.click();
    return true;
  }
  return false;
})()`

// session is one page's render: the requests it intercepts and answers.
type session struct {
	b       *Browser
	p       Page
	target  atomic.Pointer[chromedp.Target]
	docDone atomic.Bool // the page's own document was answered
	wg      sync.WaitGroup

	inflight                   atomic.Int64
	lastActive                 atomic.Int64 // unix nanos of the last request's end
	requests, refused, blocked atomic.Int64
	count                      atomic.Int64 // requests intercepted
}

// renderOn renders p in a new tab (in a new browser context) of inst.
func (b *Browser) renderOn(ctx context.Context, inst *instance, p Page) (Result, error) {
	start := time.Now()
	deadline := start.Add(b.o.Timeout)
	tctx, cancelTab := b.takeTab(inst)
	defer cancelTab()
	// the caller's end, or a hang past the budget, closes the tab
	stop := context.AfterFunc(ctx, cancelTab)
	defer stop()
	hard := time.AfterFunc(b.o.Timeout+snapshotGrace+time.Second, cancelTab)
	defer hard.Stop()

	reqCtx, cancelReqs := context.WithCancel(ctx)
	s := &session{b: b, p: p}
	s.lastActive.Store(time.Now().UnixNano())
	defer func() {
		cancelReqs()
		s.wg.Wait() // no answer outlives the render (Page.Fetch's caller relies on it)
	}()
	if err := chromedp.Listen(tctx, s.onEvent(reqCtx)); err != nil {
		return Result{}, fmt.Errorf("open tab: %w", err)
	}
	var res Result
	_, err := chromedp.Run(tctx, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		s.target.Store(t)
		if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: hookJS}); err != nil {
			return chromedp.Void{}, fmt.Errorf("add hook: %w", err)
		}
		if _, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{}); err != nil {
			return chromedp.Void{}, fmt.Errorf("intercept: %w", err)
		}
		nav, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: p.URL})
		if err != nil {
			return chromedp.Void{}, fmt.Errorf("navigate: %w", err)
		}
		if nav.ErrorText != "" {
			return chromedp.Void{}, fmt.Errorf("navigate: %s", nav.ErrorText)
		}
		busyUntil := deadline.Add(-snapshotGrace / 2)
		quiet, err := s.waitQuiet(ctx, t, busyUntil)
		if err != nil {
			return chromedp.Void{}, err
		}
		res.TimedOut = !quiet
		if quiet {
			res.Scrolls, res.Clicks, res.TimedOut = s.behave(ctx, t, busyUntil)
		}
		sctx, cancel := context.WithTimeout(ctx, snapshotGrace)
		defer cancel()
		raw, err := chromedp.Evaluate[string](snapshotJS)(sctx, t)
		if err != nil {
			return chromedp.Void{}, fmt.Errorf("snapshot: %w", err)
		}
		var snap struct {
			HTML   string   `json:"html"`
			URL    string   `json:"url"`
			Routes []string `json:"routes"`
		}
		if err := json.Unmarshal([]byte(raw), &snap); err != nil {
			return chromedp.Void{}, fmt.Errorf("snapshot: %w", err)
		}
		res.HTML, res.URL = []byte(snap.HTML), snap.URL
		seen := map[string]bool{}
		for _, r := range snap.Routes {
			if !seen[r] {
				seen[r] = true
				res.Routes = append(res.Routes, r)
			}
		}
		return chromedp.Void{}, nil
	})
	if err != nil {
		return Result{}, err
	}
	if !s.docDone.Load() {
		return Result{}, errors.New("the browser never requested the page")
	}
	res.Requests, res.Refused, res.Blocked = int(s.requests.Load()), int(s.refused.Load()), int(s.blocked.Load())
	res.Elapsed = time.Since(start)
	return res, nil
}

// waitQuiet waits until the document is loaded, no request is in flight
// and the DOM has not changed for Options.Quiet, or until until (then
// false). Errors are the tab's.
func (s *session) waitQuiet(ctx context.Context, t *chromedp.Target, until time.Time) (bool, error) {
	var lastMut float64 = -1
	lastChange := time.Now()
	tick := time.NewTicker(defaultPollInterval)
	defer tick.Stop()
	for {
		state, err := chromedp.Evaluate[[]any](stateJS)(ctx, t)
		if err != nil {
			return false, fmt.Errorf("wait: %w", err)
		}
		now := time.Now()
		ready, _ := state[0].(string)
		mut, _ := state[1].(float64)
		if mut != lastMut {
			lastMut, lastChange = mut, now
		}
		if last := time.Unix(0, s.lastActive.Load()); last.After(lastChange) {
			lastChange = last
		}
		if s.inflight.Load() > 0 {
			lastChange = now
		}
		if ready == "complete" && now.Sub(lastChange) >= s.b.o.Quiet {
			return true, nil
		}
		if now.After(until) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-tick.C:
		}
	}
}

// behave scrolls the page to its bottom and clicks "load more" controls,
// up to Options.Scroll times each, waiting for quiet after each; it stops
// scrolling when the page stops growing, clicking when no control is
// left, and both at until (timedOut).
func (s *session) behave(ctx context.Context, t *chromedp.Target, until time.Time) (scrolls, clicks int, timedOut bool) {
	n := s.b.o.Scroll
	for scrolls < n && time.Now().Before(until) {
		h0, err := chromedp.Evaluate[float64](`document.documentElement.scrollHeight - window.innerHeight - window.scrollY`)(ctx, t)
		if err != nil || h0 <= 0 {
			break // at the bottom already: nothing to scroll to
		}
		if _, err := chromedp.Evaluate[any](`window.scrollTo(0, document.documentElement.scrollHeight); window.dispatchEvent(new Event('scroll')); null`, chromedp.EvalAsValue)(ctx, t); err != nil && !errors.Is(err, chromedp.ErrJSNull) {
			return
		}
		scrolls++
		quiet, err := s.waitQuiet(ctx, t, earlier(until, time.Now().Add(defaultScrollTimeout)))
		if err != nil {
			return
		}
		h1, err := chromedp.Evaluate[float64](`document.documentElement.scrollHeight - window.innerHeight - window.scrollY`)(ctx, t)
		if err != nil || (h1 <= 0 && quiet) {
			break // the page did not grow
		}
	}
	for clicks < n && time.Now().Before(until) {
		href, _ := chromedp.Evaluate[string](`location.href`)(ctx, t)
		ok, err := chromedp.Evaluate[bool](clickJS)(ctx, t)
		if err != nil || !ok {
			break
		}
		clicks++
		if _, err := s.waitQuiet(ctx, t, earlier(until, time.Now().Add(defaultScrollTimeout))); err != nil {
			return
		}
		if now, _ := chromedp.Evaluate[string](`location.href`)(ctx, t); now != href {
			break // the click navigated: stop there
		}
	}
	return scrolls, clicks, !time.Now().Before(until)
}

// onEvent returns the listener of the tab's events. It runs on the tab's
// reader goroutine and must not block, so each intercepted request is
// answered on a goroutine of its own, with ctx (which ends with the
// render).
func (s *session) onEvent(ctx context.Context) func(ev any) {
	return func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		s.inflight.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.lastActive.Store(time.Now().UnixNano())
				s.inflight.Add(-1)
			}()
			s.answer(ctx, e)
		}()
	}
}

// answer answers one intercepted request: the page's own document with
// Page.HTML; images, media and fonts with a refusal (unless
// Options.LoadMedia); the rest with what Page.Fetch returns.
func (s *session) answer(ctx context.Context, e *fetch.EventRequestPaused) {
	t := s.target.Load()
	if t == nil || e.Request == nil {
		return
	}
	n := s.count.Add(1)
	req := e.Request
	switch {
	case e.ResourceType == network.ResourceTypeDocument && sameURL(req.URL, s.p.URL) && s.docDone.CompareAndSwap(false, true):
		ct := s.p.ContentType
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		s.fulfill(ctx, t, e.RequestID, http.StatusOK, []*fetch.HeaderEntry{{Name: "Content-Type", Value: ct}}, s.p.HTML)
		return
	case !s.b.o.LoadMedia && (e.ResourceType == network.ResourceTypeImage || e.ResourceType == network.ResourceTypeMedia || e.ResourceType == network.ResourceTypeFont):
		s.blocked.Add(1)
		s.fail(ctx, t, e.RequestID, network.ErrorReasonBlockedByClient)
		return
	case s.p.Fetch == nil || n > int64(s.b.o.MaxRequests):
		s.refused.Add(1)
		s.fail(ctx, t, e.RequestID, network.ErrorReasonBlockedByClient)
		return
	}
	resp, body, err := s.fetch(ctx, req)
	if err != nil {
		s.refused.Add(1)
		s.fail(ctx, t, e.RequestID, network.ErrorReasonAccessDenied)
		return
	}
	s.requests.Add(1)
	var hdr []*fetch.HeaderEntry
	for k, vs := range resp.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Connection", "Set-Cookie", "Keep-Alive":
			continue // the body is given whole and decoded; no cookies
		}
		for _, v := range vs {
			hdr = append(hdr, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	s.fulfill(ctx, t, e.RequestID, resp.StatusCode, hdr, body)
}

// fetch makes req through Page.Fetch and reads the body (up to
// Options.MaxBodyBytes).
func (s *session) fetch(ctx context.Context, req *network.Request) (*http.Response, []byte, error) {
	var body io.Reader
	if req.HasPostData {
		var buf bytes.Buffer
		for _, p := range req.PostDataEntries {
			buf.Write(p.Bytes)
		}
		body = &buf
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range req.Headers {
		switch http.CanonicalHeaderKey(k) {
		case "Accept-Encoding", "Cookie", "Connection", "Host", "Content-Length":
			continue // the transport negotiates encodings; no state shared
		}
		if sv, ok := v.(string); ok {
			hreq.Header.Set(k, sv)
		}
	}
	resp, err := s.p.Fetch(hreq)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, s.b.o.MaxBodyBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > s.b.o.MaxBodyBytes {
		return nil, nil, fmt.Errorf("body of %s exceeds %d bytes", req.URL, s.b.o.MaxBodyBytes)
	}
	return resp, b, nil
}

func (s *session) fulfill(ctx context.Context, t *chromedp.Target, id fetch.RequestID, status int, hdr []*fetch.HeaderEntry, body []byte) {
	_, _ = cdp.Call(ctx, t, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: id, ResponseCode: int64(status), ResponseHeaders: hdr, Body: body})
}

func (s *session) fail(ctx context.Context, t *chromedp.Target, id fetch.RequestID, reason network.ErrorReason) {
	_, _ = cdp.Call(ctx, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: reason})
}

// sameURL reports whether a and b are the same URL but for a fragment
// (the browser drops it from requests).
func sameURL(a, b string) bool {
	strip := func(s string) string {
		if u, err := url.Parse(s); err == nil {
			u.Fragment, u.RawFragment = "", ""
			return u.String()
		}
		s, _, _ = strings.Cut(s, "#")
		return s
	}
	return strip(a) == strip(b)
}

// earlier returns the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
