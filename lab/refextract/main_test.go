package main

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
)

// article is a news page: the story in <article>, with a menu, a related
// list, a comment box and a footer around it.
const article = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Harbour bridge reopens after repairs</title></head>
<body>
<header><nav><ul>
<li><a href="/">Home</a></li><li><a href="/world">World news desk</a></li>
<li><a href="/sport">Sport results page</a></li><li><a href="/subscribe">Subscribe to our newsletter today</a></li>
</ul></nav></header>
<main>
<article>
<h1>Harbour bridge reopens after repairs</h1>
<p>The old harbour bridge reopened to traffic on Monday morning after eighteen months of repairs, the city council said, with the first buses crossing shortly after six o'clock.</p>
<p>Engineers replaced the corroded steel cables that had forced the closure, and strengthened the two stone piers that carry the central span across the shipping channel.</p>
<p>Shopkeepers on both banks said trade had fallen by a third while the bridge was shut, and welcomed the return of the commuters who used to walk across it every day.</p>
<p>The council expects the footpath on the eastern side to open next month, once the new lighting has been tested and the handrails have been painted.</p>
</article>
</main>
<aside><h2>Related stories</h2><ul>
<li><a href="/a">Ferry timetable changes announced for winter season</a></li>
<li><a href="/b">Council approves budget for new cycle lanes downtown</a></li>
</ul></aside>
<footer><p>Copyright 2026 Example Gazette Limited. All rights reserved.</p>
<p><a href="/privacy">Privacy policy and cookie settings</a></p></footer>
</body></html>`

// latin is a page in ISO-8859-1 that says so in its meta tag.
const latin = `<!DOCTYPE html>
<html lang="fr"><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>Le marché de Besançon</title></head>
<body>
<nav><a href="/">Accueil du journal</a> <a href="/region">Toutes les régions</a></nav>
<article>
<h1>Le marché couvert de Besançon rouvre ses portes</h1>
<p>Après deux années de travaux, le marché couvert de Besançon a rouvert samedi matin, et les habitués ont retrouvé leurs étals préférés de fromages, de légumes et de pâtisseries.</p>
<p>Les commerçants se félicitent de la nouvelle halle, plus lumineuse et mieux chauffée, où l'on peut désormais déguster un café crème à l'étage en regardant la foule.</p>
<p>La municipalité prévoit d'ouvrir le marché le dimanche pendant l'été, à l'essai, si la fréquentation des premières semaines le justifie.</p>
</article>
<footer>Mentions légales du journal régional</footer>
</body></html>`

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExtractorsKeepArticleDropBoilerplate(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "news", "bridge.html"), []byte(article))
	writeFile(t, filepath.Join(in, "news", "index.html"), []byte(`<html><body><a href="bridge.html">bridge.html</a></body></html>`))
	writeFile(t, filepath.Join(in, "news", "urls.tsv"), []byte("bridge\thttps://gazette.example/2026/bridge\n"))
	enc, err := charmap.ISO8859_1.NewEncoder().String(latin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(in, "fr", "marche.html"), []byte(enc))

	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-in", in, "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	cases := []struct {
		set, key string
		want     []string
		not      []string
	}{
		{"news", "bridge",
			[]string{"Engineers replaced the corroded steel cables that had forced the closure", "footpath on the eastern side to open next month"},
			[]string{"Subscribe to our newsletter", "Copyright 2026 Example Gazette", "Ferry timetable changes", "Privacy policy"}},
		{"fr", "marche",
			[]string{"le marché couvert de Besançon a rouvert samedi matin", "déguster un café crème"},
			[]string{"Accueil du journal", "Mentions légales"}},
	}
	for _, ex := range extractors {
		for _, c := range cases {
			b, err := os.ReadFile(filepath.Join(out, ex.name, c.set, c.key+".txt"))
			if err != nil {
				t.Fatalf("%s: %v", ex.name, err)
			}
			text := string(b)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s %s/%s: missing %q; got:\n%s", ex.name, c.set, c.key, w, text)
				}
			}
			for _, n := range c.not {
				if strings.Contains(text, n) {
					t.Errorf("%s %s/%s: kept boilerplate %q; got:\n%s", ex.name, c.set, c.key, n, text)
				}
			}
			// Paragraphs on their own lines.
			if !strings.Contains(text, "shipping channel.\nShopkeepers") && !strings.Contains(text, "shipping channel.\n\nShopkeepers") && c.set == "news" {
				t.Errorf("%s: paragraphs not on their own lines:\n%s", ex.name, text)
			}
		}
		if _, err := os.Stat(filepath.Join(out, ex.name, "news", "index.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: index.html was extracted (stat: %v)", ex.name, err)
		}
	}
	if !strings.Contains(stdout.String(), "trafilatura  news") || !strings.Contains(stdout.String(), "readability  fr") {
		t.Errorf("summary lacks a row per extractor and set:\n%s", stdout.String())
	}
}

func TestOnlyAndBadURLs(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "news", "bridge.html"), []byte(article))
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-in", in, "-out", out, "-only", "readability", "-j", "1"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "trafilatura")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-only readability wrote trafilatura output (stat: %v)", err)
	}
	if err := run(context.Background(), []string{"-in", in, "-out", out, "-only", "boilerpipe"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), `"boilerpipe"`) {
		t.Errorf("unknown extractor: err = %v", err)
	}
	writeFile(t, filepath.Join(in, "news", "urls.tsv"), []byte("bridge\thttps://gazette.example/bridge\nbroken line without a tab\n"))
	err := run(context.Background(), []string{"-in", in, "-out", out}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "urls.tsv:2") {
		t.Errorf("bad urls.tsv line: err = %v, want one naming urls.tsv:2", err)
	}
}

func TestExtractOneTimeoutAndPanic(t *testing.T) {
	var running atomic.Int64
	track := func(d int) { running.Add(int64(d)) }
	release := make(chan struct{})
	slow := extractor{"slow", func([]byte, *url.URL) (string, error) { <-release; return "late", nil }}
	text, how, err := extractOne(slow, nil, nil, 50*time.Millisecond, track)
	if how != timedOut || text != "" || err == nil {
		t.Errorf("slow: got %q, %v, %v; want a timeout", text, how, err)
	}
	if running.Load() != 1 {
		t.Errorf("running = %d while the timed-out extraction is blocked, want 1", running.Load())
	}
	close(release)

	boom := extractor{"boom", func([]byte, *url.URL) (string, error) { panic("bad page") }}
	text, how, err = extractOne(boom, nil, nil, time.Second, func(int) {})
	if how != failed || text != "" || err == nil || !strings.Contains(err.Error(), "bad page") {
		t.Errorf("panic: got %q, %v, %v; want a failure naming the panic", text, how, err)
	}
}
