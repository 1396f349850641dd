package extracteval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// Main runs the evaluations args choose and prints their figures to
// stdout; it is `bloomcrawl-lab extract`. Flags:
//
//	-data DIR      labelled sets (each a directory with ground-truth.json.gz
//	               and html/); default: the sets built into the binary
//	-sets a,b      only these sets (default all)
//	-worst N       list the N worst pages by F1 (default 10)
//	-dedup         also run the near-duplicate evaluation
//	-v             with -dedup, list the pairs the new text gets wrong
//	-docs DIR      also measure main-text recall on the .html files under DIR
//	-docs-max N    at most N doc pages per corpus directory (default 2000)
//	-trafilatura DIR  also score trafilatura's evaluation corpus in DIR
//	               (its tests/ directory: evaldata.json, cache/, eval/)
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
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		pages, err := loadSet(fsys, name)
		if err != nil {
			return err
		}
		if *write != "" {
			if err := writeSet(filepath.Join(*write, name), pages); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d pages and index.html to %s\n", len(pages), filepath.Join(*write, name))
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
		articles(stdout, name, pages, *worst)
		if *dedup {
			if err := syndication(ctx, stdout, name, pages, *verbose); err != nil {
				return err
			}
		}
	}
	if *show != "" {
		return fmt.Errorf("extracteval: no page %q", *show)
	}
	if *write != "" {
		return nil
	}
	if *traf != "" {
		pages, err := snippetCorpus(openSnippetCorpus(*traf))
		if err != nil {
			return err
		}
		snippets(stdout, pages, *worst)
	}
	if *docs != "" {
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

func articles(w io.Writer, name string, pages []page, worst int) {
	sites := map[string]bool{}
	var base, cur []score
	var per []pageScore
	for _, p := range pages {
		sites[site(p.url)] = true
		base = append(base, match(p.body, baselineText(p.html)))
		s := match(p.body, newText(p))
		cur = append(cur, s)
		if s.tp+s.fp+s.fn > 0 {
			per = append(per, pageScore{p.key, site(p.url), s})
		}
	}
	bp, br, bf := summary(base)
	np, nr, nf := summary(cur)
	fmt.Fprintf(w, "set %s: %d pages, %d sites (4-token shingles, per-page averages)\n", name, len(pages), len(sites))
	fmt.Fprintf(w, "  %-9s precision %.3f  recall %.3f  F1 %.3f\n", "baseline", bp, br, bf)
	fmt.Fprintf(w, "  %-9s precision %.3f  recall %.3f  F1 %.3f\n", "new", np, nr, nf)
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
// fetched, and an index.html linking them all: a site a crawl with
// scope.max_depth 1 from the index fetches whole.
func writeSet(dir string, pages []page) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	var idx strings.Builder
	idx.WriteString("<html><body>\n")
	for _, p := range pages {
		name := p.key + ".html"
		if err := os.WriteFile(filepath.Join(dir, name), p.html, 0o644); err != nil {
			return fmt.Errorf("extracteval: -write: %w", err)
		}
		fmt.Fprintf(&idx, "<a href=%q>%s</a><br>\n", name, name)
	}
	idx.WriteString("</body></html>\n")
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(idx.String()), 0o644); err != nil {
		return fmt.Errorf("extracteval: -write: %w", err)
	}
	return nil
}
