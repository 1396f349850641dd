package storage

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// vocabulary for synthetic pages: English-looking words so that the HTML
// compresses roughly like real documentation pages.
var vocabulary = strings.Fields(`the of and to in is for that with as on by this are be
from or it an at which can you not if data function value page crawler store document
index return type string error option default process thread system file read write
module package import class method object list table server client request response
time memory buffer cache query filter bloom hash content duplicate title text link`)

// genPage builds a deterministic page for docID: the same docID always
// gives the same page, so a reader can verify it without the writer. Its
// HTML is 20–100 KB.
func genPage(docID uint64) *Page {
	r := rand.New(rand.NewPCG(docID, docID^0x9e3779b97f4a7c15))
	size := 20<<10 + r.IntN(80<<10)
	host := fmt.Sprintf("h%d.example", docID%13)
	u := genURL(docID)
	var html, text strings.Builder
	title := fmt.Sprintf("Page %016x: %s %s", docID, vocabulary[r.IntN(len(vocabulary))], vocabulary[r.IntN(len(vocabulary))])
	fmt.Fprintf(&html, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s</title><link rel=\"stylesheet\" href=\"/static/site.css\"></head><body><div class=\"document\"><div class=\"body\" role=\"main\">", title)
	for html.Len() < size {
		fmt.Fprintf(&html, "<div class=\"section\" id=\"s%d\"><h2>%s</h2><p>", r.IntN(1000), vocabulary[r.IntN(len(vocabulary))])
		n := 20 + r.IntN(60)
		for i := 0; i < n; i++ {
			w := vocabulary[r.IntN(len(vocabulary))]
			if r.IntN(12) == 0 {
				fmt.Fprintf(&html, "<a class=\"reference internal\" href=\"/section/%d/%s.html\">%s</a> ", r.IntN(97), w, w)
			} else {
				html.WriteString(w + " ")
			}
			text.WriteString(w + " ")
		}
		html.WriteString("</p></div>\n")
	}
	html.WriteString("</div></div></body></html>")
	return &Page{
		DocID: DocID(docID), URL: u, FinalURL: u, Status: 200, ContentType: "text/html; charset=utf-8",
		FetchedAt: time.Unix(1_790_000_000, 0).Add(time.Duration(docID%100_000) * time.Millisecond).UTC(),
		Title:     title, Text: text.String(), HTML: []byte(html.String()),
		TitleFP: r.Uint64(), ContentFP: r.Uint64(), FPFlags: uint8(r.IntN(4)),
		Depth: r.IntN(8), Referrer: fmt.Sprintf("https://%s/", host),
	}
}

// genURL is the URL of genPage(docID).
func genURL(docID uint64) string {
	return fmt.Sprintf("https://h%d.example/section/%d/page-%016x.html", docID%13, docID%97, docID)
}
