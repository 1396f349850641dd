package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/go-shiori/dom"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// An extractor turns a page's raw bytes (in whatever encoding the page
// declares) into its main text, paragraphs separated by newlines. pageURL
// is nil when the set has no urls.tsv line for the page.
type extractor struct {
	name string
	run  func(raw []byte, pageURL *url.URL) (string, error)
}

// extractors are the reference extractors, by the names -only and the
// output directories use. Both libraries decode the raw bytes themselves
// (go-shiori/dom.Parse: charset detection, then NFC normalisation), so the
// bytes are passed as read from disk.
var extractors = []extractor{
	{"trafilatura", runTrafilatura},
	{"readability", runReadability},
}

// trafilaturaOptions are the options go-trafilatura's README benchmarks its
// best F-score with ("go-trafilatura with fallback", the same options its
// command-line tool defaults to): readability and dom-distiller as fallback
// candidates, balanced focus, comments excluded, tables kept, no images or
// links, no deduplication, no language or metadata filter.
func trafilaturaOptions(pageURL *url.URL) trafilatura.Options {
	return trafilatura.Options{
		EnableFallback:  true,
		Focus:           trafilatura.Balanced,
		ExcludeComments: true,
		ExcludeTables:   false,
		OriginalURL:     pageURL,
	}
}

func runTrafilatura(raw []byte, pageURL *url.URL) (string, error) {
	res, err := trafilatura.Extract(bytes.NewReader(raw), trafilaturaOptions(pageURL))
	if err != nil && strings.HasPrefix(err.Error(), "text and comments are not long enough") {
		return "", nil // its way of saying it found no text: empty, not a failure
	}
	if err != nil {
		return "", err
	}
	if res == nil {
		return "", errors.New("no result")
	}
	return paragraphs(res.ContentNode, res.ContentText), nil
}

// blocks are the elements go-trafilatura's content tree uses that start a
// new line of text.
var blocks = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true, "footer": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "li": true, "dl": true, "dt": true, "dd": true,
	"blockquote": true, "pre": true, "table": true, "tr": true, "br": true, "hr": true,
	"figure": true, "figcaption": true,
}

// paragraphs is go-trafilatura's ContentText with its paragraphs on their
// own lines. ContentText is the content tree's text nodes joined by spaces
// where the tree's depth changes (its IterText); paragraphs joins the same
// text nodes the same way, but with a newline where a block element starts
// or ends. The words are ContentText's: when they differ (the library
// computed ContentText from another tree than the one it returns, as its
// post-cleaning can), ContentText is returned as it is, on one line.
func paragraphs(node *html.Node, contentText string) string {
	if node == nil {
		return contentText
	}
	var b strings.Builder
	sep := ""
	lastLevel := 0
	var walk func(n *html.Node, level int)
	walk = func(n *html.Node, level int) {
		block := n.Type == html.ElementNode && blocks[n.Data]
		switch {
		case block:
			sep = "\n"
		case n.Type == html.ElementNode && dom.IsVoidElement(n):
			if sep == "" {
				sep = " "
			}
		case n.Type == html.TextNode:
			if level != lastLevel && sep == "" {
				sep = " "
			}
			b.WriteString(sep)
			sep = ""
			b.WriteString(n.Data)
		}
		lastLevel = level
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, level+1)
		}
		if block {
			sep = "\n"
		}
	}
	walk(node, 0)
	var lines []string
	for _, line := range strings.Split(b.String(), "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			lines = append(lines, line)
		}
	}
	text := strings.Join(lines, "\n")
	if strings.Join(strings.Fields(text), " ") != strings.Join(strings.Fields(contentText), " ") {
		return contentText
	}
	return text
}

// runReadability is go-readability's default use (its README's
// FromReader): no readerable pre-check, default parser, and the article's
// text as RenderText gives it (block elements on their own lines).
func runReadability(raw []byte, pageURL *url.URL) (string, error) {
	art, err := readability.FromReader(bytes.NewReader(raw), pageURL)
	if err != nil {
		return "", err
	}
	if art.Node == nil {
		return "", nil // nothing found: an empty text, not a failure
	}
	var b strings.Builder
	if err := art.RenderText(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// outcome is how one extraction of one page ended.
type outcome int

const (
	ok       outcome = iota
	failed           // the library returned an error or panicked
	timedOut         // still running when the per-page timeout passed
)

// extractOne runs ex on one page with a timeout, turning a panic into an
// error. A timed-out extraction cannot be stopped (the libraries take no
// context); it keeps running in its goroutine until it returns or the
// program exits, and its result is dropped. running counts those.
func extractOne(ex extractor, raw []byte, pageURL *url.URL, timeout time.Duration, running func(delta int)) (string, outcome, error) {
	type result struct {
		text string
		err  error
	}
	ch := make(chan result, 1)
	running(1)
	go func() {
		defer running(-1)
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		text, err := ex.run(raw, pageURL)
		ch <- result{text, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", failed, r.err
		}
		return r.text, ok, nil
	case <-timer.C:
		return "", timedOut, fmt.Errorf("no result after %s", timeout)
	}
}
