package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// serveOutput is a goroutine-safe buffer for the serve command's output.
type serveOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *serveOutput) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *serveOutput) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeRefusesPublicAddrWithoutToken(t *testing.T) {
	t.Setenv("BLOOMCRAWL_TOKEN", "")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--store", t.TempDir(), "--addr", "0.0.0.0:8080"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "not a loopback address: pass --token") {
		t.Errorf("exit %d, stderr %q; want 2 and a message asking for --token", code, errb.String())
	}
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--store", t.TempDir(), "--threshold", "9"},
		{"serve", "--store", t.TempDir(), "--max-body", "0"},
		{"serve", "--store", t.TempDir(), "--addr", "nonsense"},
	} {
		errb.Reset()
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
}

// TestServeStoreInUse checks the message when another process (here: an
// open DB) owns the store.
func TestServeStoreInUse(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--store", dir, "--addr", "127.0.0.1:0"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "is in use") || !strings.Contains(errb.String(), "--serve ADDR") {
		t.Errorf("exit %d, stderr %q; want 1, the store in use and a hint", code, errb.String())
	}
}

// TestServeEndToEnd runs `bloomcrawl serve` on a real store, posts a
// document with the token, and stops it with its context (what SIGINT
// does): exit 0 and the store closed.
func TestServeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb serveOutput
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--store", dir, "--addr", "127.0.0.1:0", "--token", "tok"}, &out, &errb)
	}()
	re := regexp.MustCompile(`listening on (http://[^/]+)/`)
	var base string
	for deadline := time.Now().Add(60 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early: %s %s", code, out.String(), errb.String())
		default:
		}
	}
	if base == "" {
		t.Fatalf("serve never listened: %s %s", out.String(), errb.String())
	}
	post := func(tok string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", base+"/v1/docid", strings.NewReader(
			`{"url":"http://www.simhash.com","title":"计算机应用与软件","content":"海量网络文本去重系统实验测试，这是一段测试文本的内容。","category":"0","media":"test1","imageCount":"4"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		b, _ := io.ReadAll(resp.Body)
		json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	if code, _ := post("wrong"); code != 401 {
		t.Errorf("wrong token: %d, want 401", code)
	}
	code, m := post("tok")
	if code != 200 || m["status"] != "success" || m["filterStatus"] != "good" {
		t.Errorf("POST /v1/docid: %d %v", code, m)
	}
	// The web console: opened once with ?token=, then by its cookie.
	jar, _ := cookiejar.New(nil)
	if resp, err := (&http.Client{Jar: jar}).Get(base + "/?token=tok"); err != nil {
		t.Error(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" || !strings.Contains(string(b), "Documents") {
			t.Errorf("console: %d at %s: %.200s", resp.StatusCode, resp.Request.URL, b)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after shutdown, want 0; stderr %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	if !strings.Contains(out.String(), "answered 1 new, 0 duplicate") || !strings.Contains(out.String(), "closed") {
		t.Errorf("final line: %q", out.String())
	}
}
