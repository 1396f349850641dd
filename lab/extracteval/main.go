package extracteval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// Main runs the evaluations args choose and prints their figures to
// stdout; it is `bloomcrawl-lab extract`. Flags:
//
//	-data DIR      labelled sets (each a directory with ground-truth.json.gz
//	               and html/); default: the sets built into the binary
//	-sets a,b      only these sets (default all; "trafilatura" and "docs"
//	               name the corpora of -trafilatura and -docs)
//	-worst N       list the N worst pages by F1 (default 10)
//	-dedup         also run the near-duplicate evaluation
//	-v             with -dedup, list the pairs the new text gets wrong
//	-docs DIR      also measure main-text recall on the .html files under DIR
//	-docs-max N    at most N doc pages per corpus directory (default 2000)
//	-trafilatura DIR  also score trafilatura's evaluation corpus in DIR
//	               (its tests/ directory: evaldata.json, cache/, eval/)
//	-clean DIR     also score the public boilerplate-removal sets under DIR
//	               (Dragnet, L3S-GN1, CleanEval, CleanPortalEval,
//	               Readability's test pages; see cleaning.go)
//	-ref DIR       also score reference extractors' texts, DIR/EXTRACTOR/
//	               SET/KEY.txt (lab/refextract writes them), beside ours
//	-write DIR     write the labelled sets' pages to DIR/SET/KEY.html with
//	               an index.html linking them all (the tree the article-set
//	               crawl benchmark serves), and stop
//	-show NAME     print the new text of the page NAME (an aeb key, a
//	               trafilatura file, or the path of a documentation page)
//	               with what it gets wrong, and stop
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("extract", flag.ContinueOnError)
	fl.SetOutput(stderr)
	data := fl.String("data", "", "directory of labelled sets (default: built in)")
	only := fl.String("sets", "", "comma-separated set names (default: all)")
	worst := fl.Int("worst", 10, "list the N worst pages")
	dedup := fl.Bool("dedup", false, "run the near-duplicate evaluation")
	verbose := fl.Bool("v", false, "with -dedup, list the pairs the new text gets wrong")
	docs := fl.String("docs", "", "directory of documentation corpora to measure main-text recall on")
	docsMax := fl.Int("docs-max", 2000, "at most N pages per corpus")
	traf := fl.String("trafilatura", "", "directory of trafilatura's evaluation corpus (evaldata.json, cache/, eval/) to score")
	write := fl.String("write", "", "write the labelled sets' pages under DIR/SET/ with an index.html, and stop")
	clean := fl.String("clean", "", "directory of the public boilerplate-removal sets (DIR/SET/input, DIR/SET/GoldStandard) to score")
	ref := fl.String("ref", "", "directory of reference extractors' texts, DIR/EXTRACTOR/SET/KEY.txt, to score beside ours")
	show := fl.String("show", "", "print the new text of one page (aeb key, trafilatura file name, or a documentation page's path) and stop")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *show != "" && (strings.HasSuffix(*show, ".html") || strings.HasSuffix(*show, ".htm")) {
		if _, err := os.Stat(*show); err == nil {
			return showDoc(stdout, *show) // a documentation page
		}
	}
	if *show != "" && *traf != "" {
		pages, err := snippetCorpus(openSnippetCorpus(*traf))
		if err != nil {
			return err
		}
		for _, p := range pages {
			if p.file == *show {
				showSnippets(stdout, p)
				return nil
			}
		}
	}
	var fsys fs.FS
	if *data != "" {
		fsys = os.DirFS(*data)
	} else {
		sub, err := fs.Sub(testdata, "testdata")
		if err != nil {
			return err
		}
		fsys = sub
	}
	names, err := setNames(fsys)
	if err != nil {
		return fmt.Errorf("extracteval: sets: %w", err)
	}
	type namedSet struct {
		name string
		load func() ([]page, error)
	}
	var sets []namedSet
	for _, name := range names {
		sets = append(sets, namedSet{name, func() ([]page, error) { return loadSet(fsys, name) }})
	}
	if *clean != "" {
		cs, err := openCleaning(*clean)
		if err != nil {
			return err
		}
		cfs := os.DirFS(*clean)
		for _, c := range cs {
			sets = append(sets, namedSet{c.name, func() ([]page, error) { return loadCleaning(cfs, c) }})
		}
	}
	if *only != "" {
		want := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			want[n] = true
		}
		var kept []namedSet
		for _, s := range sets {
			if want[s.name] {
				kept = append(kept, s)
				delete(want, s.name)
			}
		}
		if *traf != "" {
			delete(want, "trafilatura")
		}
		if *docs != "" {
			delete(want, "docs")
		}
		if len(want) > 0 {
			return fmt.Errorf("extracteval: -sets: no set %s (have the built-in sets, those -clean finds, trafilatura with -trafilatura and docs with -docs)", strings.Join(slices.Sorted(maps.Keys(want)), ", "))
		}
		sets = kept
	}
	for _, set := range sets {
		if err := ctx.Err(); err != nil {
			return err
		}
		pages, err := set.load()
		if err != nil {
			return err
		}
		if *write != "" {
			if err := writeSet(filepath.Join(*write, set.name), pages); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d pages and index.html to %s\n", len(pages), filepath.Join(*write, set.name))
			continue
		}
		if *show != "" {
			for _, p := range pages {
				if p.key == *show {
					showArticle(stdout, p)
					return nil
				}
			}
			continue
		}
		articles(stdout, set.name, pages, *worst, *ref)
		if *dedup {
			if err := syndication(ctx, stdout, set.name, pages, *verbose); err != nil {
				return err
			}
		}
	}
	if *show != "" {
		return fmt.Errorf("extracteval: no page %q", *show)
	}
	if *traf != "" && (*only == "" || strings.Contains(","+*only+",", ",trafilatura,")) {
		pages, err := snippetCorpus(openSnippetCorpus(*traf))
		if err != nil {
			return err
		}
		if *write != "" {
			return writeSnippetPages(stdout, filepath.Join(*write, "trafilatura"), pages)
		}
		snippets(stdout, pages, *worst, *ref)
	}
	if *write != "" {
		return nil
	}
	if *docs != "" && (*only == "" || strings.Contains(","+*only+",", ",docs,")) {
		return docRecall(ctx, stdout, *docs, *docsMax, *worst)
	}
	return nil
}

// newText is the crawler's main text of a page.
func newText(p page) string {
	d, err := crawler.Extract(p.html, "text/html", false, p.url)
	if err != nil {
		return ""
	}
	return d.Text
}

type pageScore struct {
	key, site string
	s         score
}

func articles(w io.Writer, name string, pages []page, worst int, refDir string) {
	sites := map[string]bool{}
	var base, cur []score
	var per []pageScore
	for _, p := range pages {
		if !strings.HasSuffix(p.url.Host, ".invalid") {
			sites[site(p.url)] = true
		}
		base = append(base, match(p.body, baselineText(p.html)))
		s := match(p.body, newText(p))
		cur = append(cur, s)
		if s.tp+s.fp+s.fn > 0 {
			per = append(per, pageScore{p.key, site(p.url), s})
		}
	}
	bp, br, bf := summary(base)
	np, nr, nf := summary(cur)
	siteNote := fmt.Sprintf("%d sites", len(sites))
	if n := urlCount(pages); n < len(pages) && n > 0 {
		siteNote += fmt.Sprintf(" (%d pages without a URL)", len(pages)-urlCount(pages))
	} else if len(sites) == 0 {
		siteNote = "no URLs given"
	}
	fmt.Fprintf(w, "set %s: %d pages, %s (4-token shingles, per-page averages)\n", name, len(pages), siteNote)
	fmt.Fprintf(w, "  %-9s precision %.3f  recall %.3f  F1 %.3f\n", "baseline", bp, br, bf)
	fmt.Fprintf(w, "  %-9s precision %.3f  recall %.3f  F1 %.3f\n", "new", np, nr, nf)
	for _, ex := range refExtractors(refDir, name) {
		var rs []score
		missing := 0
		for _, p := range pages {
			text, ok := refText(refDir, ex, name, p.key)
			if !ok {
				missing++
			}
			rs = append(rs, match(p.body, text))
		}
		rp, rr, rf := summary(rs)
		fmt.Fprintf(w, "  %-9s precision %.3f  recall %.3f  F1 %.3f%s\n", ex, rp, rr, rf, missingNote(missing))
	}
	sort.Slice(per, func(i, j int) bool { return f1(per[i].s) < f1(per[j].s) })
	if worst > len(per) {
		worst = len(per)
	}
	if worst > 0 {
		fmt.Fprintf(w, "  worst pages (new):\n")
	}
	for _, ps := range per[:worst] {
		fmt.Fprintf(w, "    F1 %.3f  P %.3f  R %.3f  %s  %s\n", f1(ps.s), ps.s.precision(), ps.s.recall(), ps.site, ps.key)
	}
}

func f1(s score) float64 {
	p, r := s.precision(), s.recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// showArticle prints a labelled page's new text and its score.
func showArticle(w io.Writer, p page) {
	s := match(p.body, newText(p))
	fmt.Fprintf(w, "%s  %s\nF1 %.3f  P %.3f  R %.3f\n--- new text\n%s\n--- labelled body\n%s\n", p.key, p.url, f1(s), s.precision(), s.recall(), newText(page{url: p.url, html: p.html}), p.body)
}

// writeSet writes a labelled set's pages to dir as KEY.html, as they were
// fetched, an index.html linking them all (a site a crawl with
// scope.max_depth 1 from the index fetches whole) and urls.tsv, each
// page's URL where the set gives one (for lab/refextract).
func writeSet(dir string, pages []page) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	var idx, urls strings.Builder
	idx.WriteString("<html><body>\n")
	for _, p := range pages {
		name := p.key + ".html"
		if err := os.WriteFile(filepath.Join(dir, name), p.html, 0o644); err != nil {
			return fmt.Errorf("extracteval: -write: %w", err)
		}
		fmt.Fprintf(&idx, "<a href=%q>%s</a><br>\n", name, name)
		if !strings.HasSuffix(p.url.Host, ".invalid") {
			fmt.Fprintf(&urls, "%s\t%s\n", p.key, p.url)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "urls.tsv"), []byte(urls.String()), 0o644); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	idx.WriteString("</body></html>\n")
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(idx.String()), 0o644); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	return nil
}

// refExtractors lists the reference extractors under dir with texts for
// the set named set: dir/EXTRACTOR/SET/.
func refExtractors(dir, set string) []string {
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if st, err := os.Stat(filepath.Join(dir, e.Name(), set)); err == nil && st.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// refText is a reference extractor's text of one page; ok is false when
// it wrote none (scored as an empty text).
func refText(dir, ex, set, key string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, ex, set, key+".txt"))
	return string(b), err == nil
}

func missingNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  (%d pages without its text, scored empty)", n)
}

// urlCount counts the pages whose set gives their URL.
func urlCount(pages []page) int {
	n := 0
	for _, p := range pages {
		if !strings.HasSuffix(p.url.Host, ".invalid") {
			n++
		}
	}
	return n
}
