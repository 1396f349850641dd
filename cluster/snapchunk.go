package cluster

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The document snapshot's chunks (PREFIX:{docs}:snap:K). Each move of
// log entries into the snapshot (trimDocs) writes whole new chunks with
// SET, never APPENDs to one: an appended Redis string keeps spare room
// (it doubles below 1 MB, and keeps up to 1 MB beyond), which made a
// small snapshot up to twice its bytes. A chunk written since is a zero
// byte and then a zstd frame of packed records (per stream entry its ID,
// node and packed documents: unpackSnap); the URLs and entry IDs
// compress, the signatures (hashes) hardly. A chunk of packed records
// without the zero byte (APPENDed by an earlier version) reads as before.

// chunkZstd marks a compressed chunk (a packed record never starts with
// a zero byte: it starts with the length of a non-empty entry ID).
const chunkZstd = 0

var (
	snapEnc = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only for invalid options
		}
		return e
	})
	snapDec = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			panic(err)
		}
		return d
	})
)

// encodeChunk returns a snapshot chunk holding the packed records b.
func encodeChunk(b []byte) []byte {
	return snapEnc().EncodeAll(b, []byte{chunkZstd})
}

// decodeChunk returns the records of a whole snapshot chunk, in order.
func decodeChunk(c []byte) ([]DocEntry, error) {
	if len(c) == 0 {
		return nil, errors.New("empty chunk")
	}
	if c[0] == chunkZstd {
		b, err := snapDec().DecodeAll(c[1:], nil)
		if err != nil {
			return nil, fmt.Errorf("chunk does not decompress: %w", err)
		}
		c = b
	}
	recs, used := unpackSnap(c)
	if used != len(c) {
		return recs, fmt.Errorf("chunk cut short after %d of %d bytes", used, len(c))
	}
	return recs, nil
}

// splitRecords cuts packed records (appendRecord) into pieces of about
// max bytes each, at record boundaries (a record longer than max is a
// piece of its own).
func splitRecords(recs [][]byte, max int) [][]byte {
	var out [][]byte
	var cur []byte
	for _, r := range recs {
		if len(cur) > 0 && len(cur)+len(r) > max {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, r...)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
