package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func runDedupTest(t *testing.T, input string, args ...string) ([]map[string]any, string) {
	t.Helper()
	old := dedupStdin
	dedupStdin = strings.NewReader(input)
	defer func() { dedupStdin = old }()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"dedup"}, args...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var answers []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		answers = append(answers, m)
	}
	return answers, errb.String()
}

func TestDedupCommand(t *testing.T) {
	raw, err := os.ReadFile("../../contentdedup/testdata/en_controlflow.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw[:4000])
	q := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	body := q(text)
	lines := []string{
		`{"id": 1, "url": "https://a.example/1", "title": "Fox", "content": "` + body + `", "category": "0", "media": "x", "imageCount": 2}`,
		`{"id": "two", "url": "https://b.example/copy", "title": "Fox story", "content": "Posted on November 20, 2026 by admin\n` + body + `\nCopyright 2026 Example"}`,
		`not json`,
		`{"url": "https://c.example/", "title": "", "content": "  "}`,
		``,
		`{"url": "https://a.example/1", "title": "Fox", "content": "anything"}`,
		`{"id": 7, "url": "https://d.example/", "title": "短文本", "content": "这是一个完全不同的中文文档，讨论软件包的维护和发布流程。"}`,
		`{"url": "https://e.example/", "content": "` + strings.Repeat("x", 30000) + `"}`,
	}
	got, _ := runDedupTest(t, strings.Join(lines, "\n"), "--max-line", "20000")
	if len(got) != len(lines) {
		t.Fatalf("%d answers for %d lines: %v", len(got), len(lines), got)
	}
	want := []struct {
		status, filter, reason, errPrefix string
	}{
		{"success", "good", "new", ""},
		{"success", "duplicate", "content", ""},
		{"error", "", "", "line 3: invalid JSON"},
		{"error", "", "", "line 4: title and content"},
		{"error", "", "", "line 5: empty"},
		{"success", "duplicate", "url", ""},
		{"success", "good", "new", ""},
		{"error", "", "", "line 8: longer than 20000 bytes"},
	}
	for i, w := range want {
		a := got[i]
		if a["status"] != w.status || (w.filter != "" && a["filterStatus"] != w.filter) || (w.reason != "" && a["filterReason"] != w.reason) {
			t.Errorf("line %d: got %v, want %+v", i+1, a, w)
		}
		if w.errPrefix != "" && !strings.HasPrefix(a["error"].(string), w.errPrefix) {
			t.Errorf("line %d: error %q, want prefix %q", i+1, a["error"], w.errPrefix)
		}
	}
	if got[0]["id"] != float64(1) || got[1]["id"] != "two" || got[6]["id"] != float64(7) {
		t.Errorf("ids not passed through: %v %v %v", got[0]["id"], got[1]["id"], got[6]["id"])
	}
	if got[0]["docId"] != got[1]["docId"] || got[0]["docId"] != got[5]["docId"] || got[0]["docId"] == got[6]["docId"] {
		t.Errorf("docIds: %v %v %v %v", got[0]["docId"], got[1]["docId"], got[5]["docId"], got[6]["docId"])
	}
	if id, _ := got[0]["docId"].(string); len(id) != 16 {
		t.Errorf("docId %q: want 16 hex digits", id)
	}
	if got[1]["matchUrl"] != "https://a.example/1" {
		t.Errorf("matchUrl %v", got[1]["matchUrl"])
	}
}

func TestDedupCommandLongLine(t *testing.T) {
	long := `{"url": "https://a.example/", "content": "` + strings.Repeat("y", 5000) + `"}`
	got, _ := runDedupTest(t, long+"\n"+`{"url": "https://b.example/", "title": "ok"}`+"\n", "--max-line", "1000")
	if len(got) != 2 || got[0]["status"] != "error" || !strings.Contains(got[0]["error"].(string), "line 1: longer than 1000 bytes") || got[1]["status"] != "success" {
		t.Fatalf("got %v", got)
	}
}

func TestDedupCommandBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"dedup", "--threshold", "7"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errb.String())
	}
}

// TestDedupCommandStore checks that --store records documents and that a
// later run compares with everything stored before.
func TestDedupCommandStore(t *testing.T) {
	raw, err := os.ReadFile("../../contentdedup/testdata/en_controlflow.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(string(raw[:4000]))
	body := string(b)
	dir := t.TempDir() + "/store"
	first, _ := runDedupTest(t, `{"url": "https://a.example/1", "title": "Control flow", "content": `+body+`}`, "--store", dir)
	if len(first) != 1 || first[0]["filterStatus"] != "good" {
		t.Fatalf("first run: %v", first)
	}
	second, _ := runDedupTest(t, `{"url": "https://b.example/copy", "title": "Control flow tools", "content": `+body+`}`+"\n"+
		`{"url": "https://a.example/1", "title": "x", "content": "y"}`, "--store", dir)
	if len(second) != 2 || second[0]["filterStatus"] != "duplicate" || second[0]["docId"] != first[0]["docId"] ||
		second[1]["filterReason"] != "url" || second[1]["docId"] != first[0]["docId"] {
		t.Fatalf("second run did not see the stored document: %v (first %v)", second, first)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"query", "--store", dir, "stats", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("query stats: exit %d: %s", code, errb.String())
	}
	var st map[string]any
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st["pages"] != float64(1) || st["urls"] != float64(2) || st["duplicates"] != float64(1) {
		t.Fatalf("stats after two runs: %v", st)
	}
}
