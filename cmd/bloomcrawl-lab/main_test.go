package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

func TestFPChart(t *testing.T) {
	rows, err := filterbench.FP(context.Background(), filterbench.FPOptions{Source: "synthetic 3000", Stream: filterbench.SyntheticStream(3000),
		Budgets: []float64{4, 8}, Targets: []float64{0.01}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var jl bytes.Buffer
	for _, r := range rows {
		b, _ := json.Marshal(r)
		jl.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "fp.jsonl"), jl.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"fpchart", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	svg, err := os.ReadFile(filepath.Join(dir, "fp.svg"))
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "mdbf measured") {
		t.Errorf("fp.svg: %v, %d bytes without the expected legend", err, len(svg))
	}
	if st, err := os.Stat(filepath.Join(dir, "fp.png")); err != nil || st.Size() < 1000 {
		t.Errorf("fp.png: %v", err)
	}
	if code := run(context.Background(), []string{"fpchart"}, &out, &errOut); code != 2 {
		t.Errorf("fpchart without a directory: exit %d, want 2", code)
	}
}

func TestColly(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><a href="/a">a</a> <a href="/b">b</a> <a href="/a">a again</a></body></html>`)
	})
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<a href="/b">b</a>`) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<a href="/">home</a>`) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"colly", "--concurrency", "2", srv.URL + "/"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got := out.String(); got != "done: 3 responses\n" {
		t.Errorf("output %q, want 3 responses (each page once)", got)
	}
}
