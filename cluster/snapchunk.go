package cluster

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The chunks of a node's copy of the document log (history.go), also
// the items of a transfer of it (transfer.go): a zero byte, then a zstd
// frame of packed records (per stream entry its ID, node and packed
// documents: unpackSnap). The URLs and entry IDs compress, the
// signatures (hashes) hardly.

// chunkZstd starts every chunk (a transfer's items start with a
// letter).
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

// encodeChunk returns a chunk holding the packed records b.
func encodeChunk(b []byte) []byte {
	return snapEnc().EncodeAll(b, []byte{chunkZstd})
}

// decodeChunk returns the records of a whole chunk, in order.
func decodeChunk(c []byte) ([]DocEntry, error) {
	if len(c) == 0 || c[0] != chunkZstd {
		return nil, errors.New("not a chunk of the document log")
	}
	b, err := snapDec().DecodeAll(c[1:], nil)
	if err != nil {
		return nil, fmt.Errorf("chunk does not decompress: %w", err)
	}
	recs, used := unpackSnap(b)
	if used != len(b) {
		return recs, fmt.Errorf("chunk cut short after %d of %d bytes", used, len(b))
	}
	return recs, nil
}
