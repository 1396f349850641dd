// Command refextract runs two open-source Go main-text extractors
// (go-trafilatura and go-readability) over labelled page sets and writes
// each one's text per page, so that bloomcrawl's extractor can be scored
// beside them on the same metric (bloomcrawl-lab extract -ref).
//
// It is its own module so that the product's go.mod gains nothing.
//
//	go run . -in DIR -out OUT [-only trafilatura,readability] [-j 2] [-timeout 20s]
//
// Input: DIR/SET/KEY.html (index.html skipped), and optionally
// DIR/SET/urls.tsv with KEY<TAB>URL lines. Output: OUT/EXTRACTOR/SET/KEY.txt,
// empty when the extractor found nothing, failed or timed out.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1)
	}
}

// page is one labelled page to extract.
type page struct {
	set, key string
	path     string
	url      *url.URL // nil without a urls.tsv line
}

// tally is one extractor's counts on one set.
type tally struct {
	pages, empty, failed, timedOut int
	busy                           time.Duration // summed extraction wall time
	problems                       []string      // "KEY: reason", failures and timeouts
}

const progressEvery = 200

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("refextract", flag.ContinueOnError)
	fl.SetOutput(stderr)
	in := fl.String("in", "", "input tree DIR/SET/KEY.html (required)")
	out := fl.String("out", "", "output tree OUT/EXTRACTOR/SET/KEY.txt (required)")
	only := fl.String("only", "trafilatura,readability", "comma-separated extractors to run")
	jobs := fl.Int("j", 2, "pages extracted at once")
	timeout := fl.Duration("timeout", 20*time.Second, "per page and extractor; a page that takes longer gets an empty text")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return errors.New("refextract: -in and -out are required")
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("refextract: unexpected argument %q", fl.Arg(0))
	}
	if *jobs < 1 {
		return fmt.Errorf("refextract: -j %d: want at least 1", *jobs)
	}
	if *timeout <= 0 {
		return fmt.Errorf("refextract: -timeout %s: want a positive duration", *timeout)
	}
	exs, err := selectExtractors(*only)
	if err != nil {
		return err
	}
	pages, err := readTree(*in)
	if err != nil {
		return err
	}
	if len(pages) == 0 {
		return fmt.Errorf("refextract: no DIR/SET/KEY.html pages under %s", *in)
	}
	// Every output directory exists before the workers start.
	for _, ex := range exs {
		for _, set := range setsOf(pages) {
			if err := os.MkdirAll(filepath.Join(*out, ex.name, set), 0o755); err != nil {
				return fmt.Errorf("refextract: %w", err)
			}
		}
	}

	start := time.Now()
	var (
		mu       sync.Mutex
		tallies  = map[[2]string]*tally{} // {extractor, set}
		done     int
		firstErr error
		running  atomic.Int64
	)
	for _, ex := range exs {
		for _, set := range setsOf(pages) {
			tallies[[2]string{ex.name, set}] = &tally{}
		}
	}
	track := func(d int) { running.Add(int64(d)) }

	work := make(chan page)
	var wg sync.WaitGroup
	for range *jobs {
		wg.Go(func() {
			for p := range work {
				raw, rerr := os.ReadFile(p.path)
				for _, ex := range exs {
					text, how, err := "", failed, rerr
					t0 := time.Now()
					if rerr == nil {
						text, how, err = extractOne(ex, raw, p.url, *timeout, track)
					}
					took := time.Since(t0)
					text = strings.TrimSpace(text)
					if text != "" {
						text += "\n"
					}
					werr := os.WriteFile(filepath.Join(*out, ex.name, p.set, p.key+".txt"), []byte(text), 0o644)

					mu.Lock()
					t := tallies[[2]string{ex.name, p.set}]
					t.pages++
					t.busy += took
					switch {
					case how == timedOut:
						t.timedOut++
						t.problems = append(t.problems, fmt.Sprintf("%s: timeout: %v", p.key, err))
					case how == failed:
						t.failed++
						t.problems = append(t.problems, fmt.Sprintf("%s: %v", p.key, err))
					case text == "":
						t.empty++
					}
					if werr != nil && firstErr == nil {
						firstErr = fmt.Errorf("refextract: %w", werr)
					}
					mu.Unlock()
				}
				mu.Lock()
				done++
				if done%progressEvery == 0 {
					fmt.Fprintf(stderr, "refextract: %d/%d pages, %.0fs\n", done, len(pages), time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, p := range pages {
		select {
		case work <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("refextract: stopped after %d/%d pages: %w", done, len(pages), err)
	}
	summary(stdout, exs, setsOf(pages), tallies, time.Since(start), running.Load())
	return nil
}

func selectExtractors(only string) ([]extractor, error) {
	var exs []extractor
	for _, name := range strings.Split(only, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		i := slices.IndexFunc(extractors, func(e extractor) bool { return e.name == name })
		if i < 0 {
			var known []string
			for _, e := range extractors {
				known = append(known, e.name)
			}
			return nil, fmt.Errorf("refextract: -only: unknown extractor %q (known: %s)", name, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(exs, func(e extractor) bool { return e.name == name }) {
			exs = append(exs, extractors[i])
		}
	}
	if len(exs) == 0 {
		return nil, errors.New("refextract: -only names no extractor")
	}
	return exs, nil
}

// readTree lists DIR/SET/KEY.html, sets and keys in name order, with the
// URLs of each set's urls.tsv.
func readTree(dir string) ([]page, error) {
	sets, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("refextract: -in: %w", err)
	}
	var pages []page
	for _, s := range sets {
		if !s.IsDir() {
			continue
		}
		setDir := filepath.Join(dir, s.Name())
		urls, err := readURLs(filepath.Join(setDir, "urls.tsv"))
		if err != nil {
			return nil, err
		}
		files, err := os.ReadDir(setDir)
		if err != nil {
			return nil, fmt.Errorf("refextract: -in: %w", err)
		}
		for _, f := range files {
			name := f.Name()
			if f.IsDir() || !strings.HasSuffix(name, ".html") || name == "index.html" {
				continue
			}
			key := strings.TrimSuffix(name, ".html")
			pages = append(pages, page{set: s.Name(), key: key, path: filepath.Join(setDir, name), url: urls[key]})
		}
	}
	return pages, nil
}

// readURLs reads a set's KEY<TAB>URL lines; a missing file is no URLs.
func readURLs(path string) (map[string]*url.URL, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refextract: %w", err)
	}
	defer f.Close()
	urls := map[string]*url.URL{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, raw, found := strings.Cut(line, "\t")
		if !found || key == "" || strings.TrimSpace(raw) == "" {
			return nil, fmt.Errorf("refextract: %s:%d: want KEY<TAB>URL, got %q", path, n, line)
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || !u.IsAbs() {
			return nil, fmt.Errorf("refextract: %s:%d: %q is not an absolute URL", path, n, raw)
		}
		urls[key] = u
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("refextract: %s: %w", path, err)
	}
	return urls, nil
}

func setsOf(pages []page) []string {
	var sets []string
	for _, p := range pages {
		if len(sets) == 0 || sets[len(sets)-1] != p.set {
			sets = append(sets, p.set)
		}
	}
	return sets
}

// maxProblems is how many failed or timed-out keys the summary lists per
// extractor and set.
const maxProblems = 10

func summary(w io.Writer, exs []extractor, sets []string, tallies map[[2]string]*tally, total time.Duration, stillRunning int64) {
	fmt.Fprintf(w, "%-12s %-24s %6s %6s %6s %8s %9s\n", "extractor", "set", "pages", "empty", "failed", "timeouts", "seconds")
	for _, ex := range exs {
		for _, set := range sets {
			t := tallies[[2]string{ex.name, set}]
			fmt.Fprintf(w, "%-12s %-24s %6d %6d %6d %8d %9.1f\n", ex.name, set, t.pages, t.empty, t.failed, t.timedOut, t.busy.Seconds())
		}
	}
	for _, ex := range exs {
		for _, set := range sets {
			t := tallies[[2]string{ex.name, set}]
			if len(t.problems) == 0 {
				continue
			}
			slices.Sort(t.problems)
			fmt.Fprintf(w, "%s on %s: %d failed, %d timed out\n", ex.name, set, t.failed, t.timedOut)
			for i, p := range t.problems {
				if i == maxProblems {
					fmt.Fprintf(w, "  ... and %d more\n", len(t.problems)-maxProblems)
					break
				}
				fmt.Fprintf(w, "  %s\n", p)
			}
		}
	}
	if stillRunning > 0 {
		fmt.Fprintf(w, "%d timed-out extractions were still running at the end\n", stillRunning)
	}
	fmt.Fprintf(w, "total %.1fs (seconds per row: summed extraction time)\n", total.Seconds())
}
