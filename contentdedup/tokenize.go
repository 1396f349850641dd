package contentdedup

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"golang.org/x/text/width"
)

var (
	segOnce sync.Once
	segStop *gse.Segmenter // stop words only
	segHan  *hanCutter
	segErr  error
)

// loadSegmenter loads the shared Chinese dictionary (gse's, compiled; see
// [zhDict]) and gse's stop-word list once per process. Both are only read
// afterwards.
func loadSegmenter() (*gse.Segmenter, *hanCutter, error) {
	segOnce.Do(func() {
		d, err := parseZhDict(zhDictGz)
		if err != nil {
			segErr = fmt.Errorf("contentdedup: %w", err)
			return
		}
		var s gse.Segmenter
		s.SkipLog = true
		if err := s.LoadStopEmbed(); err != nil {
			segErr = fmt.Errorf("contentdedup: load gse stop words: %w", err)
			return
		}
		segStop, segHan = &s, newHanCutter(d)
	})
	return segStop, segHan, segErr
}

// LoadDictionary loads the shared dictionary now instead of on first use.
// It is safe to call many times and from many goroutines; only the first
// call does the work (about 0.15 s and 10 MB of heap).
func LoadDictionary() error {
	_, _, err := loadSegmenter()
	return err
}

// englishStop are English function words dropped from the features.
var englishStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
because been before being below between both but by can could did do does doing down during each
few for from further had has have having he her here hers herself him himself his how i if in into
is it its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()

// isCJK reports whether r is written without spaces between words and so
// needs a segmenter: Han ideographs (and the iteration mark 々/〇).
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || r == '〇' || r == '々'
}

// Tokenizer turns text into normalized words: full-width forms folded to
// their narrow forms, lower-cased, Han runs cut by gse, punctuation and
// Chinese/English stop words dropped. The zero value is not usable; use
// [NewTokenizer]. A Tokenizer is safe for concurrent use.
type Tokenizer struct{}

// NewTokenizer returns a Tokenizer on the shared gse dictionary. It starts
// loading the dictionary in the background (see [LoadDictionary]) and
// returns at once: only Han text waits for it, so a crawl's first fetches
// overlap the load and text without Han characters never needs it.
func NewTokenizer() *Tokenizer {
	go LoadDictionary()
	return &Tokenizer{}
}

// dict returns the shared dictionary, waiting for it to load. The
// dictionary is embedded and checked by the tests, so failing to load it
// is a broken build, not bad input: it panics.
func (t *Tokenizer) dict() (*gse.Segmenter, *hanCutter) {
	s, h, err := loadSegmenter()
	if err != nil {
		panic(err)
	}
	return s, h
}

// Tokens appends the words of text to dst and returns it.
func (t *Tokenizer) Tokens(dst []string, text string) []string {
	norm := normalize(text)
	wordStart, hanStart := -1, -1 // starts of the current non-Han word and Han run in norm
	apostrophe := false           // the current word contains apostrophes (dropped: "don't" → "dont")
	flushWord := func(end int) {
		if wordStart >= 0 {
			w := norm[wordStart:end]
			if apostrophe {
				w = dropApostrophes.Replace(w)
			}
			if !englishStop[w] {
				dst = append(dst, w)
			}
			wordStart, apostrophe = -1, false
		}
	}
	flushHan := func(end int) {
		if hanStart >= 0 {
			dst = t.cutHan(dst, norm[hanStart:end])
			hanStart = -1
		}
	}
	for i := 0; i < len(norm); {
		var r rune
		size := 1
		if c := norm[i]; c < utf8.RuneSelf {
			r = rune(c)
		} else {
			r, size = utf8.DecodeRuneInString(norm[i:])
		}
		switch {
		case r < utf8.RuneSelf && asciiWord[r]:
			flushHan(i)
			if wordStart < 0 {
				wordStart = i
			}
		case (r == '\'' || r == '’') && wordStart >= 0:
			apostrophe = true // inside a word: dropped, not a split
		case r < utf8.RuneSelf:
			flushWord(i)
			flushHan(i)
		case isCJK(r):
			flushWord(i)
			if hanStart < 0 {
				hanStart = i
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushHan(i)
			if wordStart < 0 {
				wordStart = i
			}
		default:
			flushWord(i)
			flushHan(i)
		}
		i += size
	}
	flushWord(len(norm))
	flushHan(len(norm))
	return dst
}

var dropApostrophes = strings.NewReplacer("'", "", "’", "")

// asciiWord marks the ASCII characters words are made of.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// cutHan appends gse's words of a run of Han characters. Runs are already
// short (punctuation splits them into clauses), which keeps gse's shortest-
// path segmentation fast.
func (t *Tokenizer) cutHan(dst []string, run string) []string {
	stop, han := t.dict() // gse's stop words, the Han word cutter
	if utf8.RuneCountInString(run) == 1 {
		if !stop.IsStop(run) {
			dst = append(dst, run)
		}
		return dst
	}
	han.cut(run, func(w string) {
		if !stop.IsStop(w) {
			dst = append(dst, w)
		}
	})
	return dst
}

// normalize folds full-width and half-width forms to their canonical widths
// (Ａ→A, ，→, , ｶ→カ) and lower-cases. ASCII-only text takes a fast path.
func normalize(s string) string {
	if !hasWidthVariant(s) {
		return strings.ToLower(s) // width.Fold would change nothing
	}
	return strings.ToLower(width.Fold.String(s))
}

// hasWidthVariant reports whether s may hold a rune width.Fold changes:
// the ideographic space U+3000 (UTF-8 E3 80 80) or a rune of U+FF00..U+FFFF
// (EF BC..BF xx), which holds every half-/full-width form
// (TestHasWidthVariant checks every rune).
func hasWidthVariant(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		switch s[i] {
		case 0xE3:
			if s[i+1] == 0x80 && s[i+2] == 0x80 {
				return true
			}
		case 0xEF:
			if c := s[i+1]; c >= 0xBC && c <= 0xBF {
				return true
			}
		}
	}
	return false
}
