package urlfilter

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Block is a small classic Bloom filter whose bit vector a caller stores
// and loads whole: the blocks of per-key seen-records (package seen). It uses
// the classic filter's bit positions (double hashing over the key's
// xxHash) and its sizing (ClassicBits, OptimalK), with the bit count
// rounded up to whole 64-bit words so that the stored bytes alone give m.
//
// Its bytes ([Block.Bytes]) are the bit vector as little-endian 64-bit
// words; a Block read back with [BlockFromBytes] and the same k answers
// exactly as the one written. The encoding is part of the stored records:
// changing the hash or the positions needs a new record version.
//
// Test is safe for concurrent use with other Tests and Adds; Add counts
// nothing (the caller keeps the count it stores beside the bits).
type Block struct {
	words []uint64
	m     uint64
	k     int
}

// BlockShape returns the size in bits (a multiple of 64) and the number of
// hash functions of a Block sized for capacity keys at false-positive rate
// eps: m = ClassicBits(capacity, eps) rounded up to 64, k = OptimalK.
// For 1000 ids at 0.001: 14,400 bits (1,800 bytes), k = 10.
func BlockShape(capacity uint64, eps float64) (m uint64, k int) {
	m = (ClassicBits(capacity, eps) + 63) / 64 * 64
	return m, OptimalK(m, max(capacity, 1))
}

// NewBlock returns an empty Block of m bits (rounded up to a multiple of
// 64, at least 64) probed by k hash functions; see [BlockShape].
func NewBlock(m uint64, k int) *Block {
	w := max((m+63)/64, 1)
	return &Block{words: make([]uint64, w), m: w * 64, k: max(k, 1)}
}

// BlockFromBytes returns the Block whose [Block.Bytes] are b, probed by k
// hash functions. b must be a non-empty multiple of 8 bytes; the Block
// does not keep b.
func BlockFromBytes(b []byte, k int) (*Block, error) {
	if len(b) == 0 || len(b)%8 != 0 {
		return nil, fmt.Errorf("urlfilter: Bloom block of %d bytes (want a non-zero multiple of 8)", len(b))
	}
	if k < 1 {
		return nil, fmt.Errorf("urlfilter: Bloom block with k = %d (want ≥ 1)", k)
	}
	w := make([]uint64, len(b)/8)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return &Block{words: w, m: uint64(len(w)) * 64, k: k}, nil
}

// Add records key.
func (b *Block) Add(key string) { classicSet(b.words, b.m, b.k, hashKey(key)) }

// Test reports whether key may have been added (never false for a key
// that was).
func (b *Block) Test(key string) bool { return classicTest(b.words, b.m, b.k, hashKey(key)) }

// Bits is m, the size of the bit vector.
func (b *Block) Bits() uint64 { return b.m }

// K is the number of hash functions.
func (b *Block) K() int { return b.k }

// Bytes returns the bit vector, m/8 bytes.
func (b *Block) Bytes() []byte { return b.AppendBytes(nil) }

// AppendBytes appends the bit vector (m/8 bytes) to dst.
func (b *Block) AppendBytes(dst []byte) []byte {
	for _, w := range b.words {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

// SetBits counts the bits set (the fill, for reporting).
func (b *Block) SetBits() uint64 {
	var n int
	for _, w := range b.words {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}
