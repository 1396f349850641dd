// Command gendict compiles gse's embedded Chinese dictionary (simplified and
// traditional, as gse's Segmenter.LoadDictEmbed loads it) into the word list
// that contentdedup embeds: every dictionary word made only of Han characters
// (the only words a Han run can match), with gse's frequency, plus gse's total
// frequency, which the word costs are relative to.
//
// Output (gzip-compressed UTF-8 text):
//
//	gse-zh-dict 1 total=<total frequency> words=<n> maxlen=<longest word in runes>
//	<word> <frequency>
//	...
//
// words sorted by their UTF-8 bytes. Run it through go generate in
// contentdedup after changing the gse version in go.mod;
// TestZhDictMatchesGse fails until then.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
)

func main() {
	out := flag.String("o", "zhdict.txt.gz", "output file")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gendict:", err)
		os.Exit(1)
	}
}

type entry struct {
	word string
	freq float64
}

func run(out string) error {
	var seg gse.Segmenter
	seg.SkipLog = true
	if err := seg.LoadDictEmbed(); err != nil {
		return fmt.Errorf("load gse dictionary: %w", err)
	}
	d := seg.Dict
	var words []entry
	maxLen := 0
	for i := range d.Tokens {
		t := &d.Tokens[i]
		w := t.Text()
		if !allHan(w) {
			continue
		}
		words = append(words, entry{w, t.Freq()})
		maxLen = max(maxLen, utf8.RuneCountInString(w))
	}
	slices.SortFunc(words, func(a, b entry) int {
		switch {
		case a.word < b.word:
			return -1
		case a.word > b.word:
			return 1
		}
		return 0
	})
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	fmt.Fprintf(w, "gse-zh-dict 1 total=%s words=%d maxlen=%d\n",
		strconv.FormatFloat(d.TotalFreq(), 'g', -1, 64), len(words), maxLen)
	for _, e := range words {
		fmt.Fprintf(w, "%s %s\n", e.word, strconv.FormatFloat(e.freq, 'g', -1, 64))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// allHan reports whether w is non-empty and made of the characters
// contentdedup hands to the dictionary: Han ideographs, 〇 and 々.
func allHan(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !unicode.Is(unicode.Han, r) && r != '〇' && r != '々' {
			return false
		}
	}
	return true
}
