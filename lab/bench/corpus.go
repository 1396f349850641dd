package bench

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/dedupeval"
)

// Page is one HTML page of a corpus directory, extracted as the crawler
// extracts what it fetches (crawler.Extract: charset decoding, title, main
// text).
type Page struct {
	URL   string // file:///path/to/page.html
	Title string
	Text  string
}

// CorpusOptions says how LoadCorpus samples a corpus.
type CorpusOptions struct {
	// MaxFiles caps the *.html files read per directory: past it, a sample
	// of MaxFiles files drawn with Seed (then read in path order). 0 = all.
	MaxFiles int
	Seed     uint64
}

// LoadCorpus extracts every *.html file under each of dirs (walked
// recursively; a directory given as a symbolic link is followed) with the
// crawler's own extraction, in path order per directory. Files the crawler
// cannot extract are skipped, as a crawl would skip them; a directory that
// cannot be read is an error naming it.
func LoadCorpus(ctx context.Context, dirs []string, o CorpusOptions) ([]Page, error) {
	var out []Page
	for _, dir := range dirs {
		dir = strings.TrimSpace(dir)
		if dir == "" {
			continue
		}
		// WalkDir does not follow a root link; lab corpora are symlinks.
		root, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, fmt.Errorf("bench: corpus %s: %w", dir, err)
		}
		var paths []string
		err = filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !de.IsDir() && strings.HasSuffix(path, ".html") {
				paths = append(paths, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("bench: read corpus %s: %w", dir, err)
		}
		if o.MaxFiles > 0 && len(paths) > o.MaxFiles {
			r := rand.New(rand.NewPCG(o.Seed, 3))
			r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			paths = paths[:o.MaxFiles]
			slices.Sort(paths)
		}
		for _, path := range paths {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			body, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("bench: read corpus %s: %w", dir, err)
			}
			u := &url.URL{Scheme: "file", Path: path}
			doc, err := crawler.Extract(body, "text/html", false, u)
			if err != nil {
				continue // not a page the crawler can use; corpora have a few
			}
			out = append(out, Page{URL: u.String(), Title: doc.Title, Text: doc.Text})
		}
	}
	return out, nil
}

// Language returns "zh" when at least a third of text's letters are Han
// characters, "en" when at least 99% of its letters are ASCII and "the" is
// at least 1 in 50 of its words (dedupeval.Words), and "" otherwise (mixed
// or another language).
func Language(text string) string {
	han, ascii, letters := 0, 0, 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Han, r) {
				han++
			} else if r < 128 {
				ascii++
			}
		}
	}
	if letters == 0 {
		return ""
	}
	if han*3 >= letters {
		return "zh"
	}
	words := dedupeval.Words(text)
	the := 0
	for _, w := range words {
		if w == "the" {
			the++
		}
	}
	if ascii*100 >= letters*99 && the*50 >= len(words) {
		return "en"
	}
	return ""
}
