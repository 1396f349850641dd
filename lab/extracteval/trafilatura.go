package extracteval

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// snippetPage is one page of trafilatura's evaluation corpus
// (tests/evaldata.json): snippets its main text must hold and snippets of
// boilerplate it must not.
type snippetPage struct {
	url           *url.URL
	file          string
	html          []byte
	with, without []string
}

// snippetCorpus reads trafilatura's evaluation corpus from fsys: its
// evaldata.json ({URL: {"file", "with", "without"}}) and each file from
// cache/ or eval/ (as eval_common.resolve looks them up), or the same
// name with .gz appended (the sample committed here is gzipped).
func snippetCorpus(fsys fs.FS) ([]snippetPage, error) {
	b, err := fs.ReadFile(fsys, "evaldata.json")
	if err != nil {
		return nil, fmt.Errorf("extracteval: trafilatura corpus: %w", err)
	}
	var data map[string]struct {
		File    string   `json:"file"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := json.Unmarshal(b, &data); err != nil {
		return nil, fmt.Errorf("extracteval: trafilatura corpus: evaldata.json: %w", err)
	}
	if len(data) == 0 {
		return nil, errors.New("extracteval: trafilatura corpus: evaldata.json holds no pages")
	}
	urls := make([]string, 0, len(data))
	for u := range data {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	pages := make([]snippetPage, 0, len(urls))
	for _, raw := range urls {
		item := data[raw]
		if item.File == "" || len(item.With) == 0 || len(item.Without) == 0 {
			return nil, fmt.Errorf("extracteval: trafilatura corpus: evaldata.json: %s: needs a file and with/without snippets", raw)
		}
		html, err := snippetFile(fsys, item.File)
		if err != nil {
			return nil, fmt.Errorf("extracteval: trafilatura corpus: %s: %w", raw, err)
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			u = &url.URL{Scheme: "https", Host: "page.invalid", Path: "/" + item.File}
		}
		pages = append(pages, snippetPage{url: u, file: item.File, html: html, with: item.With, without: item.Without})
	}
	return pages, nil
}

func snippetFile(fsys fs.FS, name string) ([]byte, error) {
	for _, dir := range []string{"cache", "eval"} {
		p := path.Join(dir, name)
		if b, err := fs.ReadFile(fsys, p); err == nil {
			return b, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		f, err := fsys.Open(p + ".gz")
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s.gz: %w", p, err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("%s.gz: %w", p, err)
		}
		return bytes.Clone(b), nil
	}
	return nil, fmt.Errorf("%s not found under cache/ or eval/", name)
}

// openSnippetCorpus opens dir as the corpus: dir itself when it holds
// evaldata.json, else dir/tests (a checkout of the trafilatura repository).
func openSnippetCorpus(dir string) fs.FS {
	if _, err := os.Stat(path.Join(dir, "evaldata.json")); err != nil {
		if _, err := os.Stat(path.Join(dir, "tests", "evaldata.json")); err == nil {
			dir = path.Join(dir, "tests")
		}
	}
	return os.DirFS(dir)
}

var spaceRun = regexp.MustCompile(`\s+`)

// normSpace is eval_common.norm: runs of whitespace (Python's \s, which
// Go's \s approximates: ASCII space, tab, newline, CR, FF) become one
// space, the ends are trimmed; case is kept.
func normSpace(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\v', '\u0085', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\u001c', '\u001d', '\u001e', '\u001f':
			return ' ' // Python's str \s is Unicode whitespace
		}
		if r >= '\u2000' && r <= '\u200a' {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(spaceRun.ReplaceAllString(s, " "))
}

// confusion is eval_common.ConfusionMatrix: snippet counts summed over pages.
type confusion struct{ tp, fp, fn, tn int }

// count scores one page's text as eval_common.count_item: a "with" snippet
// found is a TP, missed an FN; a "without" snippet found is an FP, absent a
// TN; both as whitespace-normalized, case-sensitive substrings.
func countSnippets(p snippetPage, text string) confusion {
	t := normSpace(text)
	var c confusion
	for _, w := range p.with {
		if strings.Contains(t, normSpace(w)) {
			c.tp++
		} else {
			c.fn++
		}
	}
	for _, w := range p.without {
		if strings.Contains(t, normSpace(w)) {
			c.fp++
		} else {
			c.tn++
		}
	}
	return c
}

func (c *confusion) add(o confusion) { c.tp += o.tp; c.fp += o.fp; c.fn += o.fn; c.tn += o.tn }

// scores are ConfusionMatrix.scores: precision, recall, accuracy, F1 (each
// 0 when its denominator is).
func (c confusion) scores() (p, r, acc, f1 float64) {
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	return ratio(c.tp, c.tp+c.fp), ratio(c.tp, c.tp+c.fn), ratio(c.tp+c.tn, c.tp+c.tn+c.fp+c.fn), ratio(2*c.tp, 2*c.tp+c.fp+c.fn)
}

// snippetResult is one extractor's totals on the corpus.
type snippetResult struct {
	name string
	c    confusion
	note string
}

// snippets runs the extractors over the corpus, prints their scores and
// the worst pages of the crawler's extractor, and returns the totals.
func snippets(w io.Writer, pages []snippetPage, worst int, refDir string) []snippetResult {
	type pageErr struct {
		p snippetPage
		c confusion
	}
	res := []snippetResult{{name: "raw HTML"}, {name: "baseline"}, {name: "new"}}
	var per []pageErr
	sites := map[string]bool{}
	chunks := [2]int{}
	for _, p := range pages {
		sites[site(p.url)] = true
		chunks[0] += len(p.with)
		chunks[1] += len(p.without)
		raw, text := "", ""
		if d, err := crawler.Extract(p.html, "text/html", false, p.url); err == nil {
			raw, text = string(d.HTML), d.Text
		}
		res[0].c.add(countSnippets(p, raw))
		res[1].c.add(countSnippets(p, baselineText(p.html)))
		c := countSnippets(p, text)
		res[2].c.add(c)
		if c.fp+c.fn > 0 {
			per = append(per, pageErr{p, c})
		}
	}
	for _, ex := range refExtractors(refDir, "trafilatura") {
		r := snippetResult{name: ex}
		missing := 0
		for _, p := range pages {
			text, ok := refText(refDir, ex, "trafilatura", snippetKey(p))
			if !ok {
				missing++
			}
			r.c.add(countSnippets(p, text))
		}
		r.note = missingNote(missing)
		res = append(res, r)
	}
	fmt.Fprintf(w, "set trafilatura: %d pages, %d sites, %d text & %d boilerplate snippets (substring matching)\n", len(pages), len(sites), chunks[0], chunks[1])
	for _, r := range res {
		p, rc, acc, f := r.c.scores()
		fmt.Fprintf(w, "  %-9s precision %.3f  recall %.3f  accuracy %.3f  F1 %.3f  (TP %d FP %d FN %d TN %d)%s\n", r.name, p, rc, acc, f, r.c.tp, r.c.fp, r.c.fn, r.c.tn, r.note)
	}
	sort.SliceStable(per, func(i, j int) bool {
		return per[i].c.fp+per[i].c.fn > per[j].c.fp+per[j].c.fn
	})
	worst = min(worst, len(per))
	if worst > 0 {
		fmt.Fprintf(w, "  worst pages (new; missed text snippets, boilerplate snippets kept):\n")
	}
	for _, pe := range per[:worst] {
		fmt.Fprintf(w, "    FN %d/%d  FP %d/%d  %s  %s\n", pe.c.fn, len(pe.p.with), pe.c.fp, len(pe.p.without), site(pe.p.url), pe.p.file)
	}
	return res
}

// showSnippets prints a corpus page's new text and how each snippet fared.
func showSnippets(w io.Writer, p snippetPage) {
	text := ""
	if d, err := crawler.Extract(p.html, "text/html", false, p.url); err == nil {
		text = d.Text
	}
	t := normSpace(text)
	fmt.Fprintf(w, "%s  %s\n", p.file, p.url)
	for _, s := range p.with {
		fmt.Fprintf(w, "  with    %-5v %q\n", strings.Contains(t, normSpace(s)), s)
	}
	for _, s := range p.without {
		fmt.Fprintf(w, "  without %-5v %q\n", strings.Contains(t, normSpace(s)), s)
	}
	fmt.Fprintf(w, "--- new text\n%s\n", text)
}

// snippetKey is a corpus page's key in a written tree: its file name
// without the extension.
func snippetKey(p snippetPage) string { return strings.TrimSuffix(p.file, path.Ext(p.file)) }

// writeSnippetPages writes the corpus's pages to dir as KEY.html (the
// tree lab/refextract reads), with urls.tsv naming each page's URL.
func writeSnippetPages(w io.Writer, dir string, pages []snippetPage) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	var urls strings.Builder
	for _, p := range pages {
		if err := os.WriteFile(path.Join(dir, snippetKey(p)+".html"), p.html, 0o644); err != nil {
			return fmt.Errorf("extracteval: -write: %w", err)
		}
		fmt.Fprintf(&urls, "%s\t%s\n", snippetKey(p), p.url)
	}
	if err := os.WriteFile(path.Join(dir, "urls.tsv"), []byte(urls.String()), 0o644); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	fmt.Fprintf(w, "wrote %d pages and urls.tsv to %s\n", len(pages), dir)
	return nil
}
