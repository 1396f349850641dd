package storage

import (
	"encoding/binary"
	"net/url"
	"strings"
)

// Key namespaces; see doc.go for the schema.
const (
	nsPage   = 'p'
	nsFP     = 'f'
	nsURL    = 'u'
	nsDoc    = 'd'
	nsCanon  = 'c'
	nsHost   = 'h'
	nsTime   = 't'
	nsQueue  = 'q'
	nsQueued = 'e'
	nsTrace  = 'r'
	nsMeta   = 'm'
)

var (
	keyVersion  = []byte("!version")
	keySeqQueue = []byte("!seq/queue")
	keySeqTrace = []byte("!seq/trace")
	// keyQueuedIndex marks a store whose queued URLs all have their
	// e <url> mark (written at creation, or by the one-time
	// migration of an older store; see indexQueue).
	keyQueuedIndex = []byte("!index/queued")
)

func u64key(ns byte, v uint64) []byte {
	k := make([]byte, 9)
	k[0] = ns
	binary.BigEndian.PutUint64(k[1:], v)
	return k
}

func pageKey(docID DocID) []byte   { return u64key(nsPage, uint64(docID)) }
func fpKey(docID DocID) []byte     { return u64key(nsFP, uint64(docID)) }
func queueKey(seq uint64) []byte   { return u64key(nsQueue, seq) }
func queuedKey(u string) []byte    { return append([]byte{nsQueued}, u...) }
func traceKey(seq uint64) []byte   { return u64key(nsTrace, seq) }
func urlKey(u string) []byte       { return append([]byte{nsURL}, u...) }
func metaKey(key string) []byte    { return append([]byte{nsMeta}, key...) }
func docPrefix(docID DocID) []byte { return u64key(nsDoc, uint64(docID)) }

func docURLKey(docID DocID, u string) []byte {
	return append(docPrefix(docID), u...)
}

func canonKey(u string, docID DocID) []byte {
	k := make([]byte, 0, 1+len(u)+1+8)
	k = append(k, nsCanon)
	k = append(k, u...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, uint64(docID))
}

func hostPrefix(host string) []byte {
	k := make([]byte, 0, 2+len(host))
	k = append(k, nsHost)
	k = append(k, host...)
	return append(k, 0)
}

func hostKey(host, u string, docID DocID) []byte {
	k := hostPrefix(host)
	k = append(k, u...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, uint64(docID))
}

func timeKey(t int64, docID DocID) []byte {
	k := make([]byte, 17)
	k[0] = nsTime
	// Offset binary so that negative (pre-1970) times sort before positive.
	binary.BigEndian.PutUint64(k[1:], uint64(t)^(1<<63))
	binary.BigEndian.PutUint64(k[9:], uint64(docID))
	return k
}

func timeKeyNanos(k []byte) int64 {
	return int64(binary.BigEndian.Uint64(k[1:9]) ^ (1 << 63))
}

// seqSuffix returns the trailing 8-byte number of a key (a queue or
// trace seq).
func seqSuffix(k []byte) uint64 {
	return binary.BigEndian.Uint64(k[len(k)-8:])
}

// docIDSuffix returns the trailing 8-byte docId of a page, fingerprint or
// index key.
func docIDSuffix(k []byte) DocID { return DocID(seqSuffix(k)) }

// hostOf returns the lower-case host[:port] of a URL, or "" when the URL
// does not parse or has no host.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}
