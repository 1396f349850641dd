package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Two real ~5 KB Chinese articles (sections of the Debian handbook, zh-CN)
// and a near-identical copy of the first, as the docId service design's example has it: the
// same article republished under another URL with a few words changed.
var (
	zhA = mustRead("testdata/zh_debian_internals.txt")
	zhC = mustRead("testdata/zh_installation_steps.txt")
	zhB = nearCopy(zhA)
)

func mustRead(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// nearCopy changes a few words of s and appends a reprint note, as a site
// that republishes an article does.
func nearCopy(s string) string {
	s = strings.Replace(s, "相当团队性", "非常团队性", 1)
	s = strings.Replace(s, "真正的国际计划", "真正国际化的计划", 1)
	return s + "（本文转载自 Debian 管理员手册）\n"
}

type env struct {
	t   *testing.T
	srv *httptest.Server
	db  *storage.DB
	svc *api.Service
	dir string
	tok string // sent as the bearer token when set
}

// newEnv starts the API over a new store in t.TempDir() on 127.0.0.1.
func newEnv(t *testing.T, o api.HandlerOptions) *env {
	t.Helper()
	return openEnv(t, t.TempDir(), o)
}

// openEnv starts the API over the store in dir (created if missing),
// rebuilding the dedup index from it.
func openEnv(t *testing.T, dir string, o api.HandlerOptions) *env {
	t.Helper()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := api.NewService(context.Background(), d, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, svc: svc, dir: dir, tok: o.Token}
	e.srv = httptest.NewServer(api.NewHandler(svc, db, o))
	t.Cleanup(e.close)
	return e
}

func (e *env) close() {
	if e.srv != nil {
		e.srv.Close()
		e.srv = nil
		if err := e.db.Close(); err != nil {
			e.t.Errorf("close store: %v", err)
		}
	}
}

// do sends a request and returns the status and body.
func (e *env) do(method, path, body string, header ...string) (int, []byte, http.Header) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.tok != "" {
		req.Header.Set("Authorization", "Bearer "+e.tok)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// getJSON sends a request, checks the status and decodes the answer.
func (e *env) call(method, path, body string, wantCode int, out any) {
	e.t.Helper()
	code, b, h := e.do(method, path, body)
	if code != wantCode {
		e.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, code, wantCode, b)
	}
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		e.t.Fatalf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

func (e *env) submit(doc map[string]any) api.Response {
	e.t.Helper()
	var r api.Response
	e.call("POST", "/v1/docid", mustJSON(doc), 200, &r)
	return r
}

func (e *env) stats() storage.Stats {
	e.t.Helper()
	var st storage.Stats
	e.call("GET", "/v1/stats", "", 200, &st)
	return st
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var hexID = regexp.MustCompile(`^[0-9a-f]{16}$`)

func doc(url, title, content string) map[string]any {
	return map[string]any{"url": url, "title": title, "content": content, "category": "0", "media": "test", "imageCount": "4"}
}

// TestDocIDServiceExperiment runs the docId service design's experiment on real ~5 KB Chinese articles:
// the first is new, its near-identical copy under another URL gets the same
// docId and is marked duplicate, and the store keeps one page with both
// URLs.
func TestDocIDServiceExperiment(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	first := e.submit(map[string]any{"id": "nid-1", "url": "http://www.simhash.com/a", "title": "计算机应用与软件",
		"content": zhA, "category": "0", "media": "test1", "imageCount": "4"})
	if first.Status != "success" || first.FilterStatus != "good" || first.FilterReason != "new" || !hexID.MatchString(first.DocID) {
		t.Fatalf("first article: %+v, want success/good/new with a 16-hex docId", first)
	}
	if string(first.ID) != `"nid-1"` {
		t.Errorf("id = %s, want the request's \"nid-1\" passed through", first.ID)
	}
	second := e.submit(map[string]any{"id": 2, "url": "http://www.simhash1.com/b", "title": "计算机应用和软件2",
		"content": zhB, "category": 0, "media": "test2", "imageCount": 3})
	if second.Status != "success" || second.FilterStatus != "duplicate" || second.DocID != first.DocID {
		t.Fatalf("near-identical copy: %+v, want duplicate of %s", second, first.DocID)
	}
	if second.FilterReason != "content" && second.FilterReason != "title" {
		t.Errorf("filterReason = %q, want content or title", second.FilterReason)
	}
	if second.MatchURL != "http://www.simhash.com/a" || second.Distance == nil || *second.Distance > 3 {
		t.Errorf("match = %q at distance %v, want the first URL within 3 bits", second.MatchURL, second.Distance)
	}
	if string(second.ID) != "2" {
		t.Errorf("id = %s, want 2", second.ID)
	}
	third := e.submit(doc("http://example.org/install", "安装步骤", zhC))
	if third.FilterStatus != "good" || third.DocID == first.DocID {
		t.Fatalf("a different article: %+v, want good with its own docId", third)
	}

	// The store keeps one page for the two URLs, with the first URL's text.
	var page struct {
		Status string           `json:"status"`
		Page   storage.PageView `json:"page"`
	}
	e.call("GET", "/v1/pages/"+first.DocID, "", 200, &page)
	if page.Page.URL != "http://www.simhash.com/a" || page.Page.Text == nil || *page.Page.Text != zhA || page.Page.Title != "计算机应用与软件" || page.Page.DocID.String() != first.DocID {
		t.Errorf("GET page: url %q title %q docId %q, text equal: %v", page.Page.URL, page.Page.Title, page.Page.DocID, page.Page.Text != nil && *page.Page.Text == zhA)
	}
	var urls api.URLsAnswer
	e.call("GET", "/v1/pages/"+first.DocID+"/urls", "", 200, &urls)
	if urls.Count != 2 || len(urls.URLs) != 2 {
		t.Fatalf("GET urls: %+v, want 2", urls)
	}
	for _, u := range urls.URLs {
		wantDup := u.URL == "http://www.simhash1.com/b"
		if u.DocID.String() != first.DocID || u.Duplicate != wantDup {
			t.Errorf("url record %+v: want docId %s duplicate=%v", u, first.DocID, wantDup)
		}
	}
	var byURL api.PageAnswer
	e.call("GET", "/v1/pages?url=http://www.simhash1.com/b", "", 200, &byURL)
	if !byURL.URL.Duplicate || byURL.Page == nil || byURL.Page.URL != "http://www.simhash.com/a" || byURL.Page.Text == nil || *byURL.Page.Text != zhA {
		t.Errorf("GET ?url= of the duplicate: %+v", byURL)
	}
	st := e.stats()
	if st.Pages != 2 || st.URLs != 3 || st.Duplicates != 1 || st.Hosts != 2 {
		t.Errorf("stats: pages %d urls %d duplicates %d hosts %d, want 2 3 1 2", st.Pages, st.URLs, st.Duplicates, st.Hosts)
	}

	// The same URL again is answered from the URL step and changes nothing:
	// the first URL stays the page's own (not a duplicate of itself).
	again := e.submit(doc("http://www.simhash.com/a", "whatever", "completely different text about something else entirely"))
	if again.FilterStatus != "duplicate" || again.FilterReason != "url" || again.DocID != first.DocID {
		t.Errorf("same URL again: %+v, want duplicate by url of %s", again, first.DocID)
	}
	if st2 := e.stats(); st2.URLs != st.URLs || st2.Duplicates != st.Duplicates || st2.Pages != st.Pages {
		t.Errorf("stats after resubmitting a URL: %+v, want unchanged %+v", st2, st)
	}
	e.call("GET", "/v1/pages?url=http://www.simhash.com/a", "", 200, &byURL)
	if byURL.URL.Duplicate || byURL.URL.Reason != "new" {
		t.Errorf("first URL's record after resubmission: %+v, want reason new, not duplicate", byURL.URL)
	}
}

// TestRestart checks that a service restarted on the same store answers as
// before: the index is rebuilt from the stored fingerprints and URLs.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	e := openEnv(t, dir, api.HandlerOptions{})
	a := e.submit(doc("http://a.example/1", "Debian 内部", zhA))
	c := e.submit(doc("http://c.example/1", "安装", zhC))
	dup := e.submit(doc("http://b.example/1", "Debian 内部（转载）", zhB))
	if a.FilterStatus != "good" || c.FilterStatus != "good" || dup.DocID != a.DocID {
		t.Fatalf("before restart: %+v %+v %+v", a, c, dup)
	}
	e.close()

	e = openEnv(t, dir, api.HandlerOptions{})
	if n := e.svc.Len(); n != 2 {
		t.Errorf("index after restart holds %d documents, want 2", n)
	}
	for _, tc := range []struct {
		url, content, wantID, wantReason string
	}{
		{"http://a.example/1", "other text", a.DocID, "url"},
		{"http://b.example/1", "other text", a.DocID, "url"}, // a duplicate's URL is remembered too
		{"http://d.example/1", zhB + "再转", a.DocID, ""},      // near-duplicate by fingerprint
		{"http://e.example/1", zhC, c.DocID, ""},             // exact copy of the other one
	} {
		r := e.submit(doc(tc.url, "转载", tc.content))
		if r.FilterStatus != "duplicate" || r.DocID != tc.wantID || (tc.wantReason != "" && r.FilterReason != tc.wantReason) {
			t.Errorf("after restart %s: %+v, want duplicate of %s (%s)", tc.url, r, tc.wantID, tc.wantReason)
		}
	}
}

// TestBadInput sends every kind of bad request and checks the status, that
// the message names what was wrong, and that nothing was recorded.
func TestBadInput(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{MaxBody: 64 << 10})
	e.submit(doc("http://seed.example/", "种子", zhC)) // a non-empty store to compare against
	before := e.stats()
	beforeLen := e.svc.Len()
	good := `"url":"http://x.example/1","title":"t","content":"some content here"`
	big := strings.Repeat("长", 30<<10) // 90 KB of UTF-8 > MaxBody
	for _, tc := range []struct {
		name, method, path, body, contentType string
		code                                  int
		msg                                   string // substring of the error
	}{
		{"malformed", "POST", "/v1/docid", `{"url": "http://x.example/", "title": `, "", 400, "request body: invalid JSON: truncated"},
		{"syntax", "POST", "/v1/docid", `{"url" "http://x.example/"}`, "", 400, "invalid JSON at byte"},
		{"trailing data", "POST", "/v1/docid", `{` + good + `} {"x":1}`, "", 400, "unexpected data after the object"},
		{"empty body", "POST", "/v1/docid", ``, "", 400, "empty"},
		{"array on single", "POST", "/v1/docid", `[{` + good + `}]`, "", 400, "want a JSON object"},
		{"missing url", "POST", "/v1/docid", `{"title":"t","content":"c"}`, "", 400, "url: missing"},
		{"relative url", "POST", "/v1/docid", `{"url":"/a/b","title":"t","content":"c"}`, "", 400, "url: want an absolute http or https URL"},
		{"huge url", "POST", "/v1/docid", `{"url":"http://x.example/` + strings.Repeat("a", 9000) + `","title":"t","content":"c"}`, "", 400, "url: 9017 bytes, longer than the 8192 accepted"},
		{"ftp url", "POST", "/v1/docid", `{"url":"ftp://x.example/f","title":"t","content":"c"}`, "", 400, "url: want an absolute http or https URL"},
		{"no title no content", "POST", "/v1/docid", `{"url":"http://x.example/","title":"  ","content":""}`, "", 400, "title and content: both missing"},
		{"url not a string", "POST", "/v1/docid", `{"url":5,"title":"t","content":"c"}`, "", 400, "field url"},
		{"content not a string", "POST", "/v1/docid", `{"url":"http://x.example/","content":{"a":1}}`, "", 400, "field content"},
		{"bad imageCount", "POST", "/v1/docid", `{` + good + `,"imageCount":"many"}`, "", 400, "imageCount: want a non-negative integer"},
		{"object category", "POST", "/v1/docid", `{` + good + `,"category":{"a":1}}`, "", 400, "category: want a string or a number"},
		{"oversized", "POST", "/v1/docid", `{"url":"http://x.example/","title":"t","content":"` + big + `"}`, "", 413, "larger than 65536 bytes"},
		{"form content type", "POST", "/v1/docid", `{` + good + `}`, "application/x-www-form-urlencoded", 415, "want application/json"},
		{"text/plain content type", "POST", "/v1/docid:batch", `[{` + good + `}]`, "text/plain;charset=UTF-8", 415, "want application/json"},
		{"batch: empty", "POST", "/v1/docid:batch", ` `, "", 400, "empty"},
		{"batch: empty array", "POST", "/v1/docid:batch", `[]`, "", 400, "empty array"},
		{"batch: bad item", "POST", "/v1/docid:batch", `[{` + good + `},{"url":"http://y.example/"},{` + good + `}]`, "", 400, "item 2: title and content"},
		{"batch: bad line", "POST", "/v1/docid:batch", "{" + good + "}\n\n{\"url\": oops}\n", "", 400, "line 3: invalid JSON"},
		{"batch: malformed array", "POST", "/v1/docid:batch", `[{` + good + `},`, "", 400, "invalid JSON"},
		{"batch: oversized", "POST", "/v1/docid:batch", `[{"url":"http://x.example/","title":"t","content":"` + big + `"}]`, "", 413, "larger than"},
		{"page: bad docId", "GET", "/v1/pages/xyz", "", "", 400, `docId "xyz": want 16 hexadecimal digits`},
		{"page: too long docId", "GET", "/v1/pages/00000000000000001", "", "", 400, "want 16 hexadecimal digits"},
		{"page: docId 0", "GET", "/v1/pages/0000000000000000", "", "", 400, "0 is not a document id"},
		{"page: unknown", "GET", "/v1/pages/00000000deadbeef", "", "", 404, "docId 00000000deadbeef: not found"},
		{"urls: unknown", "GET", "/v1/pages/00000000deadbeef/urls", "", "", 404, "not found"},
		{"urls: bad docId", "GET", "/v1/pages/12z/urls", "", "", 400, "want 16 hexadecimal digits"},
		{"page: short docId is not guessed at", "GET", "/v1/pages/1234", "", "", 400, `bad docId "1234": want 16 hexadecimal digits as printed (e.g. 00000000000004d2) or 0x`},
		{"pages: no selector", "GET", "/v1/pages", "", "", 400, "needs url=U, or host=H, prefix=P, since=T or until=T"},
		{"pages: unknown url", "GET", "/v1/pages?url=http://nowhere.example/", "", "", 404, "not found"},
		{"pages: url with limit", "GET", "/v1/pages?url=http://seed.example/&limit=3", "", "", 400, "does not combine"},
		{"pages: bad limit", "GET", "/v1/pages?host=seed.example&limit=abc", "", "", 400, `limit="abc": want an integer from 1 to 1000`},
		{"pages: zero limit", "GET", "/v1/pages?host=seed.example&limit=0", "", "", 400, "want an integer from 1"},
		{"pages: huge limit", "GET", "/v1/pages?host=seed.example&limit=5000", "", "", 400, "want an integer from 1"},
		{"pages: bad cursor", "GET", "/v1/pages?host=seed.example&after=zz", "", "", 400, `after="zz": not a cursor`},
		{"pages: bad escape", "GET", "/v1/pages?host=seed.example&after=%%%", "", "", 400, "query string: invalid URL escape"},
		{"pages: bad since", "GET", "/v1/pages?since=yesterday", "", "", 400, `since="yesterday": want an RFC 3339 time`},
		{"pages: bad flag", "GET", "/v1/pages?host=seed.example&text=maybe", "", "", 400, `text="maybe": want true or false`},
		{"wrong method", "GET", "/v1/docid", "", "", 405, "method GET not allowed on /v1/docid"},
		{"wrong method stats", "DELETE", "/v1/stats", "", "", 405, "not allowed"},
		{"no route", "GET", "/v2/nothing", "", "", 404, "no route GET /v2/nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.contentType != "" {
				hdr = []string{"Content-Type", tc.contentType}
			}
			code, b, h := e.do(tc.method, tc.path, tc.body, hdr...)
			if code != tc.code {
				t.Fatalf("status %d, want %d; body %s", code, tc.code, b)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want JSON", ct)
			}
			var ans api.ErrorAnswer
			if err := json.Unmarshal(b, &ans); err != nil || ans.Status != "error" {
				t.Fatalf("body %s: want {\"status\":\"error\",...} (%v)", b, err)
			}
			if !strings.Contains(ans.Error, tc.msg) {
				t.Errorf("error %q does not say %q", ans.Error, tc.msg)
			}
			if tc.code == 405 && h.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
		})
	}
	after := e.stats()
	if after.Pages != before.Pages || after.URLs != before.URLs || after.Duplicates != before.Duplicates {
		t.Errorf("bad input changed the store: %+v → %+v", before, after)
	}
	if e.svc.Len() != beforeLen {
		t.Errorf("bad input changed the dedup index: %d → %d documents", beforeLen, e.svc.Len())
	}
}

// TestLooseFields checks that the docId service design's own spelling (numbers as strings)
// and the common one (numbers as numbers, null) are both accepted.
func TestLooseFields(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	for i, body := range []string{
		`{"url":"http://l.example/1","title":"测试","content":"这是一个测试","category":"0","media":"sina","imageCount":"4"}`,
		`{"url":"http://l.example/2","title":"another title","content":"","category":0,"media":null,"imageCount":4}`,
		`{"url":"http://l.example/3","content":"only content, no title","imageCount":"","id":null}`,
	} {
		var r api.Response
		e.call("POST", "/v1/docid", body, 200, &r)
		if r.Status != "success" || !hexID.MatchString(r.DocID) {
			t.Errorf("body %d: %+v", i, r)
		}
		if len(r.ID) != 0 {
			t.Errorf("body %d: id %s echoed, want none", i, r.ID)
		}
	}
}

// TestBatch checks both batch formats, answer order, the count limit, and
// the colon in the route.
func TestBatch(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{MaxBatch: 3})
	items := []map[string]any{
		doc("http://batch.example/a", "甲", zhA),
		doc("http://batch.example/b", "乙", zhB),
		doc("http://batch.example/c", "丙", zhC),
	}
	for i := range items {
		items[i]["id"] = i + 1
	}
	var ans api.BatchResponse
	e.call("POST", "/v1/docid:batch", mustJSON(items), 200, &ans)
	if ans.Status != "success" || ans.Count != 3 || len(ans.Results) != 3 {
		t.Fatalf("array batch: %+v", ans)
	}
	r := ans.Results
	if r[0].FilterStatus != "good" || r[1].FilterStatus != "duplicate" || r[1].DocID != r[0].DocID ||
		r[2].FilterStatus != "good" || r[2].DocID == r[0].DocID {
		t.Errorf("array batch results: %+v", r)
	}
	for i := range r {
		if string(r[i].ID) != fmt.Sprint(i+1) {
			t.Errorf("result %d has id %s: answers out of order", i, r[i].ID)
		}
	}

	// JSON lines, the same documents under new URLs: all duplicates now.
	var lines bytes.Buffer
	for i := range items {
		items[i]["url"] = fmt.Sprintf("http://lines.example/%d", i)
		lines.WriteString(mustJSON(items[i]) + "\n")
	}
	code, b, _ := e.do("POST", "/v1/docid:batch", lines.String(), "Content-Type", "application/x-ndjson")
	if code != 200 {
		t.Fatalf("JSON lines batch: %d %s", code, b)
	}
	var ans2 api.BatchResponse
	if err := json.Unmarshal(b, &ans2); err != nil {
		t.Fatal(err)
	}
	if ans2.Count != 3 || ans2.Results[0].DocID != r[0].DocID || ans2.Results[1].DocID != r[0].DocID || ans2.Results[2].DocID != r[2].DocID {
		t.Errorf("JSON lines batch: %+v", ans2.Results)
	}
	for _, x := range ans2.Results {
		if x.FilterStatus != "duplicate" {
			t.Errorf("JSON lines batch: %+v, want duplicate", x)
		}
	}

	// Over the limit: 413, nothing recorded.
	before := e.stats()
	items = append(items, doc("http://batch.example/d", "丁", "另一段完全不同的内容，用来超出批量上限。"))
	for _, body := range []string{mustJSON(items), strings.Repeat(mustJSON(items[3])+"\n", 4)} {
		code, b, _ := e.do("POST", "/v1/docid:batch", body)
		if code != 413 || !strings.Contains(string(b), "more than 3 documents") {
			t.Errorf("4 documents with --max-batch 3: %d %s, want 413", code, b)
		}
	}
	if after := e.stats(); after.URLs != before.URLs {
		t.Errorf("a refused batch recorded %d URLs", after.URLs-before.URLs)
	}

	// The colon is a literal in the pattern: an escaped colon reaches the
	// same route, and the single-document route does not swallow the batch.
	code, b, _ = e.do("POST", "/v1/docid%3Abatch", mustJSON(items[:1]))
	if code != 200 || !strings.Contains(string(b), `"results"`) {
		t.Errorf("POST /v1/docid%%3Abatch: %d %s", code, b)
	}
	code, _, _ = e.do("POST", "/v1/docid:batchx", mustJSON(items[:1]))
	if code != 404 {
		t.Errorf("POST /v1/docid:batchx: %d, want 404", code)
	}
}

// TestListPages pages through a host with a cursor.
func TestListPages(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	paras := strings.Split(zhA+zhC, "\n\n")
	want := map[string]bool{}
	n := 0
	for i, p := range paras {
		if len([]rune(p)) < 60 {
			continue
		}
		u := fmt.Sprintf("http://list.example/p%02d", i)
		r := e.submit(doc(u, fmt.Sprintf("第 %d 段", i), p))
		if r.FilterStatus == "good" {
			want[u] = true
		}
		n++
	}
	e.submit(doc("http://other.example/x", "其他", "另一个主机上的页面，不应出现在列表中。"))
	if len(want) < 4 {
		t.Fatalf("only %d distinct paragraphs", len(want))
	}
	got := map[string]bool{}
	after, calls := "", 0
	for {
		var ans api.ListAnswer
		e.call("GET", "/v1/pages?host=list.example&limit=3&after="+after, "", 200, &ans)
		calls++
		if ans.Count != len(ans.Pages) || ans.Count > 3 {
			t.Fatalf("count %d with %d pages", ans.Count, len(ans.Pages))
		}
		for _, p := range ans.Pages {
			if got[p.URL] {
				t.Errorf("%s listed twice", p.URL)
			}
			got[p.URL] = true
			if p.Text != nil {
				t.Errorf("list included text without text=1")
			}
		}
		if ans.Next == "" {
			break
		}
		after = ans.Next
		if calls > 20 {
			t.Fatal("cursor never ends")
		}
	}
	if len(got) != len(want) {
		t.Errorf("listed %d pages of list.example, want %d", len(got), len(want))
	}
	for u := range want {
		if !got[u] {
			t.Errorf("%s not listed", u)
		}
	}
	var ans api.ListAnswer
	e.call("GET", "/v1/pages?host=list.example&limit=1&text=1", "", 200, &ans)
	if len(ans.Pages) != 1 || ans.Pages[0].Text == nil || *ans.Pages[0].Text == "" {
		t.Errorf("text=1 did not include the text: %+v", ans.Pages)
	}
}

// TestStatsMatchStore checks that /v1/stats answers storage.Stats as is.
func TestStatsMatchStore(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	e.submit(doc("http://s.example/1", "甲", zhA))
	e.submit(doc("http://s.example/2", "乙", zhB))
	_, b, _ := e.do("GET", "/v1/stats", "")
	st, err := e.db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	json.Unmarshal(b, &got)
	wb, _ := json.Marshal(st)
	json.Unmarshal(wb, &want)
	delete(got, "disk_bytes") // changes as Badger writes
	delete(want, "disk_bytes")
	if mustJSON(got) != mustJSON(want) {
		t.Errorf("GET /v1/stats = %s, storage.Stats = %s", mustJSON(got), mustJSON(want))
	}
}

// TestMetrics checks the Prometheus exposition after a few requests.
func TestMetrics(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	e.submit(doc("http://m.example/1", "甲", zhA))
	e.submit(doc("http://m.example/2", "乙", zhB))
	e.do("POST", "/v1/docid", `{"url":"http://m.example/3"}`)
	e.do("GET", "/v1/pages/00000000deadbeef", "")
	code, b, h := e.do("GET", "/metrics", "")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", code, h.Get("Content-Type"))
	}
	text := string(b)
	for _, want := range []string{
		`bloomcrawl_api_requests_total{code="200",method="post",route="/v1/docid"} 2`,
		`bloomcrawl_api_requests_total{code="400",method="post",route="/v1/docid"} 1`,
		`bloomcrawl_api_requests_total{code="404",method="get",route="/v1/pages/{docId}"} 1`,
		`bloomcrawl_api_request_duration_seconds_count{method="post",route="/v1/docid"} 3`,
		`bloomcrawl_api_documents_total{filter_status="good",reason="new"} 1`,
		`bloomcrawl_api_documents_total{filter_status="duplicate",reason=`,
		`bloomcrawl_dedup_index_documents 1`,
		`bloomcrawl_store_pages 1`,
		`bloomcrawl_store_urls 2`,
		`bloomcrawl_store_duplicates 1`,
		`bloomcrawl_store_up 1`,
		`bloomcrawl_store_size_bytes `,
		`bloomcrawl_store_free_bytes `,
		`bloomcrawl_store_min_free_bytes `,
		`go_goroutines `,
		`process_resident_memory_bytes `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestHealthz(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	var ans map[string]string
	e.call("GET", "/healthz", "", 200, &ans)
	if ans["status"] != "ok" {
		t.Errorf("healthz: %v", ans)
	}
}

// TestHostCheck checks that a server without a token answers only requests
// addressed to a loopback host (DNS rebinding), and one with a token any.
func TestHostCheck(t *testing.T) {
	for _, tok := range []string{"", "tok"} {
		e := newEnv(t, api.HandlerOptions{Token: tok})
		for _, tc := range []struct {
			host string
			code int
		}{
			{"127.0.0.1", 200}, {"localhost:8080", 200}, {"[::1]:80", 200}, {"127.0.0.2:1", 200},
			{"evil.example", 403}, {"evil.example:8080", 403}, {"10.0.0.1", 403}, {"127.0.0.1.evil.example", 403},
		} {
			req, _ := http.NewRequest("GET", e.srv.URL+"/healthz", nil)
			req.Host = tc.host
			if tok != "" {
				req.Header.Set("Authorization", "Bearer tok")
			}
			resp, err := e.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := tc.code
			if tok != "" {
				want = 200 // with a token, any Host: it may be behind a proxy
			}
			if resp.StatusCode != want {
				t.Errorf("token %q, Host %q: %d %s, want %d", tok, tc.host, resp.StatusCode, b, want)
			}
		}
	}
}

// TestAuth checks the bearer token on every route but /healthz.
func TestAuth(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{Token: "s3cret-token"})
	body := mustJSON(doc("http://auth.example/", "t", "some content for the auth test"))
	for _, tc := range []struct {
		name, method, path, body, auth string
		code                           int
	}{
		{"no token", "POST", "/v1/docid", body, "", 401},
		{"wrong token", "POST", "/v1/docid", body, "Bearer s3cret-tokem", 401},
		{"token prefix", "POST", "/v1/docid", body, "Bearer s3cret", 401},
		{"wrong scheme", "POST", "/v1/docid", body, "Basic s3cret-token", 401},
		{"metrics needs it", "GET", "/metrics", "", "", 401},
		{"stats needs it", "GET", "/v1/stats", "", "", 401},
		{"unknown route needs it", "GET", "/nothing", "", "", 401},
		{"healthz does not", "GET", "/healthz", "", "", 200},
		{"right token", "POST", "/v1/docid", body, "Bearer s3cret-token", 200},
		{"scheme case-insensitive", "GET", "/v1/stats", "", "bearer s3cret-token", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b, h := e.do(tc.method, tc.path, tc.body, "Authorization", tc.auth)
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, b)
			}
			if code == 401 {
				if !strings.Contains(string(b), `"status":"error"`) || !strings.Contains(string(b), "bearer token") {
					t.Errorf("401 body %s", b)
				}
				if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("401 without WWW-Authenticate: Bearer")
				}
			}
		})
	}
	if st, _ := e.db.Stats(context.Background()); st.URLs != 1 {
		t.Errorf("%d URLs recorded, want only the authorized request's 1", st.URLs)
	}
}

// TestSubmitInMemory uses the Go API without a store, as `bloomcrawl dedup`
// without --store does.
func TestSubmitInMemory(t *testing.T) {
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := api.NewService(context.Background(), d, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := svc.Submit(ctx, api.Request{URL: "http://mem.example/a", Title: "甲", Content: zhA})
	b := svc.Submit(ctx, api.Request{URL: "http://mem.example/b", Title: "乙", Content: zhB, ID: json.RawMessage(`"x"`)})
	bad := svc.Submit(ctx, api.Request{URL: "http://mem.example/c"})
	if a.FilterStatus != "good" || b.FilterStatus != "duplicate" || b.DocID != a.DocID || string(b.ID) != `"x"` {
		t.Errorf("in memory: %+v %+v", a, b)
	}
	if bad.Status != "error" || !strings.Contains(bad.Error, "title and content") || bad.DocID != "" {
		t.Errorf("invalid request: %+v", bad)
	}
	if good, dup, failed, invalid := svc.Counts(); good != 1 || dup != 1 || failed != 0 || invalid != 1 {
		t.Errorf("counts %d %d %d %d, want 1 1 0 1", good, dup, failed, invalid)
	}
}

// TestSubmitStoreClosed checks that a failing commit answers an error (500
// over HTTP) instead of a docId that was never recorded.
func TestSubmitStoreClosed(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	srv := e.srv
	e.srv = nil // we close things ourselves
	defer srv.Close()
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	defer func() { e.srv = nil }()
	code, b, _ := e.do("POST", "/v1/docid", mustJSON(doc("http://closed.example/", "t", zhC)))
	if code != 500 || !strings.Contains(string(b), `"status":"error"`) || !strings.Contains(string(b), "closed") {
		t.Errorf("commit on a closed store: %d %s, want 500 naming the cause", code, b)
	}
}

// TestCanonicalURL checks that documents are recorded under the crawler's
// canonical URL, so variants of one URL meet at the URL step.
func TestCanonicalURL(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	a := e.submit(doc("HTTP://Canon.Example:80/a?utm_source=feed#comments", "甲", zhA))
	b := e.submit(doc("http://canon.example/a", "乙", "entirely different content that would be new on its own"))
	if a.FilterStatus != "good" || b.FilterStatus != "duplicate" || b.FilterReason != "url" || b.DocID != a.DocID {
		t.Fatalf("URL variants: %+v then %+v, want the second a url duplicate", a, b)
	}
	var ans api.PageAnswer
	e.call("GET", "/v1/pages?url=http%3A%2F%2FCANON.example%2Fa%3Futm_medium%3Dx", "", 200, &ans)
	if ans.URL.URL != "http://canon.example/a" || ans.Page == nil || ans.Page.DocID.String() != a.DocID {
		t.Errorf("lookup by a variant: %+v", ans)
	}
	var list api.ListAnswer
	e.call("GET", "/v1/pages?since=2000-01-01T00:00:00Z&limit=10", "", 200, &list)
	if list.Count != 1 || list.Pages[0].URL != "http://canon.example/a" {
		t.Errorf("list since 2000: %+v", list)
	}
	e.call("GET", "/v1/pages?until=2000-01-01T00:00:00Z", "", 200, &list)
	if list.Count != 0 {
		t.Errorf("list until 2000: %+v", list)
	}
}

// TestSubmitJSON checks the JSON-lines entry point `bloomcrawl dedup` uses.
func TestSubmitJSON(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	ctx := context.Background()
	ok := e.svc.SubmitJSON(ctx, []byte(`{"id":"n1","url":"http://j.example/1","title":"测试","content":"这是一个测试","imageCount":"4"}`), "line 1")
	if ok.Status != "success" || ok.FilterStatus != "good" || string(ok.ID) != `"n1"` {
		t.Errorf("good line: %+v", ok)
	}
	for _, tc := range []struct{ line, msg, id string }{
		{`{"id":7,"url":"http://j.example/2"}`, "line 2: title and content: both missing", "7"},
		{`{"id":8,"url":"http://j.example/3","title":"t","content":"c","imageCount":"x"}`, "line 3: field imageCount", "8"},
		{`{"url": "http://j.example/4", `, "line 4: invalid JSON", ""},
		{`not json`, "line 5: invalid JSON", ""},
	} {
		where := tc.msg[:strings.Index(tc.msg, ":")]
		r := e.svc.SubmitJSON(ctx, []byte(tc.line), where)
		if r.Status != "error" || !strings.HasPrefix(r.Error, tc.msg) || string(r.ID) != tc.id || r.DocID != "" {
			t.Errorf("%s: %+v, want error %q with id %q", tc.line, r, tc.msg, tc.id)
		}
	}
	if st, _ := e.db.Stats(context.Background()); st.URLs != 1 {
		t.Errorf("%d URLs recorded, want 1 (bad lines record nothing)", st.URLs)
	}
}

// TestStatsFollowTheStore: /v1/stats reuses a reading only for 10× its
// scan time, so a new document shows up at once on a small store.
func TestStatsFollowTheStore(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	e.submit(doc("http://s.example/1", "甲", zhA))
	if st := e.stats(); st.Pages != 1 {
		t.Fatalf("pages %d, want 1", st.Pages)
	}
	e.submit(doc("http://s.example/2", "乙", zhC))
	deadline := time.Now().Add(5 * time.Second)
	for e.stats().Pages != 2 {
		if time.Now().After(deadline) {
			t.Fatal("/v1/stats still answers the old reading after 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
