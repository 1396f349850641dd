package crawler

import (
	"encoding/json"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/frontier"
)

// A queue entry in the cluster's streams holds a URL, its depth and its
// referrer. The hints of an entry that has them (a sitemap to read, a
// guessed one, a sitemap's lastmod and news fields) travel in the
// referrer field, so that the node that takes the entry (the owner of the
// host's partition) reads a sitemap as a sitemap: clusterReferrer puts
// them there, entryHints takes them out. Entries without hints keep the
// plain referrer.

// hintsMark starts a referrer field that carries hints: the mark, the
// hints as JSON, a NUL, then the referrer (a URL holds no NUL).
const hintsMark = "\x00hints"

// clusterReferrer is the referrer field of c's entry in the cluster.
func clusterReferrer(c frontier.Candidate) string {
	if c.Hints == nil {
		return c.Referrer
	}
	b, _ := json.Marshal(c.Hints)
	return hintsMark + string(b) + "\x00" + c.Referrer
}

// entryHints splits a referrer field written by clusterReferrer into the
// referrer and the hints (nil for none, or for a field it did not write).
func entryHints(field string) (string, *frontier.Hints) {
	rest, ok := strings.CutPrefix(field, hintsMark)
	if !ok {
		return field, nil
	}
	js, ref, ok := strings.Cut(rest, "\x00")
	var h frontier.Hints
	if !ok || json.Unmarshal([]byte(js), &h) != nil {
		return field, nil
	}
	return ref, &h
}
