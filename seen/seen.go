package seen

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// Defaults of Options.
const (
	DefaultCapacity = 1000
	DefaultFP       = 0.001
	DefaultBlocks   = 5
	DefaultTTL      = 5 * 24 * time.Hour
	DefaultMaxIDs   = 1000 // ids per Add or Test call
	DefaultMaxKey   = 256  // bytes per key
	DefaultMaxID    = 256  // bytes per id
)

// Options configures [New]. The zero value gives the default records: 1000 ids a block at 0.001, 5 blocks, 5 days.
type Options struct {
	// Capacity is the number of ids per Bloom block. Default 1000.
	Capacity int
	// FP is each block's false-positive rate at Capacity, in (0, 0.5).
	// Default 0.001.
	FP float64
	// Blocks is the most blocks a record keeps. Default 5, at least 2.
	Blocks int
	// TTL is how long a record lives after its last write. Default 5 days.
	TTL time.Duration
	// Audit keeps the plain ids of the last Blocks·Capacity adds beside
	// the blocks (see Record.Audit). Default off.
	Audit bool
	// MaxIDs is the most ids one Add or Test accepts. Default 1000.
	MaxIDs int
	// MaxKey and MaxID are the longest key and id accepted, in bytes.
	// Defaults 256 and 256.
	MaxKey, MaxID int
}

// ErrOptions is wrapped by New for invalid Options.
var ErrOptions = errors.New("seen: invalid options")

// ErrInput is wrapped by the errors for a bad key or bad ids; nothing is
// recorded.
var ErrInput = errors.New("seen: invalid input")

// ErrTooMany is wrapped (with ErrInput) by the error for more than MaxIDs
// ids in one call.
var ErrTooMany = fmt.Errorf("%w: too many ids", ErrInput)

// ErrCorrupt is wrapped when a stored record does not decode.
var ErrCorrupt = errors.New("seen: stored record does not decode")

// WithDefaults returns o with zero fields set to their defaults.
func (o Options) WithDefaults() Options {
	o.Capacity = cmp.Or(o.Capacity, DefaultCapacity)
	o.FP = cmp.Or(o.FP, DefaultFP)
	o.Blocks = cmp.Or(o.Blocks, DefaultBlocks)
	o.TTL = cmp.Or(o.TTL, DefaultTTL)
	o.MaxIDs = cmp.Or(o.MaxIDs, DefaultMaxIDs)
	o.MaxKey = cmp.Or(o.MaxKey, DefaultMaxKey)
	o.MaxID = cmp.Or(o.MaxID, DefaultMaxID)
	return o
}

// Validate reports the first invalid field of o (after defaults), naming it.
func (o Options) Validate() error {
	o = o.WithDefaults()
	switch {
	case o.Capacity < 1 || o.Capacity > 10_000_000:
		return fmt.Errorf("%w: capacity %d (want 1 to 10,000,000)", ErrOptions, o.Capacity)
	case !(o.FP > 0 && o.FP < 0.5):
		return fmt.Errorf("%w: fp %g (want 0 < fp < 0.5)", ErrOptions, o.FP)
	case o.Blocks < 2 || o.Blocks > 1000:
		return fmt.Errorf("%w: blocks %d (want 2 to 1000)", ErrOptions, o.Blocks)
	case o.TTL < time.Second:
		return fmt.Errorf("%w: ttl %s (want at least 1s: Badger expires in whole seconds)", ErrOptions, o.TTL)
	case o.MaxIDs < 1 || o.MaxKey < 1 || o.MaxID < 1:
		return fmt.Errorf("%w: max_ids %d, max_key %d, max_id %d (want ≥ 1)", ErrOptions, o.MaxIDs, o.MaxKey, o.MaxID)
	}
	return nil
}

// Store holds one value per key with an expiry. *storage.DB implements it.
type Store interface {
	// SeenRecord returns key's value and when it expires; a nil value and
	// no error when there is none (or it expired).
	SeenRecord(ctx context.Context, key string) (val []byte, expires time.Time, err error)
	// UpdateSeenRecord replaces key's value atomically with fn(old),
	// expiring ttl from now; a nil new value deletes it. Updates of one
	// key must not interleave.
	UpdateSeenRecord(ctx context.Context, key string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error
}

// Records are the seen-records in a Store. Safe for concurrent use.
type Records struct {
	st   Store
	o    Options
	bits uint64 // bits of a new block
	k    int
}

// New returns the records in st with options o (nil: defaults). It fails
// with ErrOptions for invalid options.
func New(st Store, o *Options) (*Records, error) {
	if st == nil {
		return nil, errors.New("seen: New: nil Store")
	}
	var opts Options
	if o != nil {
		opts = *o
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.WithDefaults()
	m, k := urlfilter.BlockShape(uint64(opts.Capacity), opts.FP)
	return &Records{st: st, o: opts, bits: m, k: k}, nil
}

// Options returns the options in effect.
func (r *Records) Options() Options { return r.o }

// CheckKey reports whether key is acceptable: 1 to MaxKey bytes of valid
// UTF-8 without control characters, not ending in ":test" (the API's test
// route).
func (r *Records) CheckKey(key string) error {
	switch {
	case key == "" || len(key) > r.o.MaxKey:
		return fmt.Errorf("%w: key of %d bytes (want 1 to %d)", ErrInput, len(key), r.o.MaxKey)
	case !utf8.ValidString(key) || strings.ContainsFunc(key, isControl):
		return fmt.Errorf("%w: key %q has invalid UTF-8 or control characters", ErrInput, key)
	case strings.HasSuffix(key, ":test"):
		return fmt.Errorf("%w: key %q ends in \":test\" (reserved for the API's test route)", ErrInput, key)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// checkIDs reports the first bad id, by its position.
func (r *Records) checkIDs(ids []string) error {
	if len(ids) == 0 {
		return fmt.Errorf("%w: no ids", ErrInput)
	}
	if len(ids) > r.o.MaxIDs {
		return fmt.Errorf("%w: %d ids in one call (limit %d)", ErrTooMany, len(ids), r.o.MaxIDs)
	}
	for i, id := range ids {
		if id == "" || len(id) > r.o.MaxID {
			return fmt.Errorf("%w: ids[%d]: %d bytes (want 1 to %d)", ErrInput, i, len(id), r.o.MaxID)
		}
	}
	return nil
}

// AddResult says what an Add did.
type AddResult struct {
	Added  int // ids new to the newest block (the others were already in it)
	Blocks int // blocks in the record now
}

// Add records ids under key (at most MaxIDs of them) and renews the
// record's expiry. Errors: ErrInput for a bad key or ids (nothing is
// recorded), ErrCorrupt for a stored record that does not decode (it is
// left as it is), or the Store's error.
func (r *Records) Add(ctx context.Context, key string, ids []string) (AddResult, error) {
	if err := r.CheckKey(key); err != nil {
		return AddResult{}, err
	}
	if err := r.checkIDs(ids); err != nil {
		return AddResult{}, err
	}
	var res AddResult
	err := r.st.UpdateSeenRecord(ctx, key, r.o.TTL, func(old []byte) ([]byte, error) {
		rec, err := decode(old)
		if err != nil {
			return nil, fmt.Errorf("seen-record %q: %w", key, err)
		}
		res = r.add(&rec, ids)
		return rec.encode(), nil
	})
	return res, err
}

func (r *Records) add(rec *record, ids []string) AddResult {
	res := AddResult{}
	for _, id := range ids {
		if len(rec.blocks) == 0 || rec.blocks[0].count >= uint64(r.o.Capacity) {
			b := block{Block: urlfilter.NewBlock(r.bits, r.k)}
			rec.blocks = append([]block{b}, rec.blocks[:min(len(rec.blocks), r.o.Blocks-1)]...)
		}
		b := &rec.blocks[0]
		if !b.Test(id) {
			b.Add(id)
			b.count++
			res.Added++
		}
	}
	if r.o.Audit {
		rec.audit = append(rec.audit, ids...)
		if over := len(rec.audit) - r.o.Blocks*r.o.Capacity; over > 0 {
			rec.audit = rec.audit[over:]
		}
	} else {
		rec.audit = nil
	}
	res.Blocks = len(rec.blocks)
	return res
}

// Test reports, for each of ids in order, whether key has seen it (any of
// its blocks holds it; a Bloom false positive answers true for an id never
// added, at about Blocks·FP at worst). A key with no record has seen
// nothing. Errors as Add's.
func (r *Records) Test(ctx context.Context, key string, ids []string) ([]bool, error) {
	if err := r.CheckKey(key); err != nil {
		return nil, err
	}
	if err := r.checkIDs(ids); err != nil {
		return nil, err
	}
	val, _, err := r.st.SeenRecord(ctx, key)
	if err != nil {
		return nil, err
	}
	rec, err := decode(val)
	if err != nil {
		return nil, fmt.Errorf("seen-record %q: %w", key, err)
	}
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = rec.test(id)
	}
	return out, nil
}

// Delete removes key's record and reports whether there was one.
func (r *Records) Delete(ctx context.Context, key string) (bool, error) {
	if err := r.CheckKey(key); err != nil {
		return false, err
	}
	var existed bool
	err := r.st.UpdateSeenRecord(ctx, key, 0, func(old []byte) ([]byte, error) {
		existed = old != nil
		return nil, nil
	})
	return existed, err
}

// Record describes one key's stored record.
type Record struct {
	Key     string      `json:"key"`
	Expires *time.Time  `json:"expires,omitempty"` // nil: no record (or one that never expires)
	Bytes   int         `json:"bytes"`             // stored value size
	Blocks  []BlockInfo `json:"blocks"`            // newest first
	Audit   []string    `json:"audit,omitempty"`   // the audited ids, oldest first (Options.Audit)
}

// BlockInfo describes one Bloom block of a record.
type BlockInfo struct {
	Count       uint64  `json:"count"`        // ids added to it
	Bits        uint64  `json:"bits"`         // its size
	K           int     `json:"k"`            // hash functions
	SetBits     uint64  `json:"set_bits"`     // bits set
	PredictedFP float64 `json:"predicted_fp"` // (1 − e^(−k·count/bits))^k
	// Seed is the block in the form the seen-records design stores it in, "count::base64(bits)".
	Seed string `json:"seed,omitempty"`
}

// Show returns key's record (no blocks when there is none). seedForm
// includes each block in the seed's text form (2.4 KB each).
func (r *Records) Show(ctx context.Context, key string, seedForm bool) (Record, error) {
	if err := r.CheckKey(key); err != nil {
		return Record{}, err
	}
	val, exp, err := r.st.SeenRecord(ctx, key)
	if err != nil {
		return Record{}, err
	}
	rec, err := decode(val)
	if err != nil {
		return Record{}, fmt.Errorf("seen-record %q: %w", key, err)
	}
	out := Record{Key: key, Bytes: len(val), Audit: rec.audit, Blocks: []BlockInfo{}}
	if !exp.IsZero() {
		out.Expires = &exp
	}
	for _, b := range rec.blocks {
		bi := BlockInfo{Count: b.count, Bits: b.Bits(), K: b.K(), SetBits: b.SetBits(),
			PredictedFP: urlfilter.ClassicFP(b.Bits(), b.K(), b.count)}
		if seedForm {
			bi.Seed = fmt.Sprintf("%d::%s", b.count, base64.StdEncoding.EncodeToString(b.Bytes()))
		}
		out.Blocks = append(out.Blocks, bi)
	}
	return out, nil
}

// record is a decoded stored record.
type record struct {
	blocks []block // newest first
	audit  []string
}

type block struct {
	*urlfilter.Block
	count uint64
}

func (rec *record) test(id string) bool {
	for _, b := range rec.blocks {
		if b.Test(id) {
			return true
		}
	}
	return false
}

const formatVersion = 1

func (rec *record) encode() []byte {
	n := 16
	for _, b := range rec.blocks {
		n += 24 + int(b.Bits()/8)
	}
	out := make([]byte, 0, n)
	out = append(out, formatVersion)
	out = binary.AppendUvarint(out, uint64(len(rec.blocks)))
	for _, b := range rec.blocks {
		out = binary.AppendUvarint(out, b.count)
		out = binary.AppendUvarint(out, uint64(b.K()))
		out = binary.AppendUvarint(out, b.Bits()/8)
		out = b.AppendBytes(out)
	}
	out = binary.AppendUvarint(out, uint64(len(rec.audit)))
	for _, id := range rec.audit {
		out = binary.AppendUvarint(out, uint64(len(id)))
		out = append(out, id...)
	}
	return out
}

// decode reads a stored record; nil or empty is the empty record.
func decode(b []byte) (record, error) {
	var rec record
	if len(b) == 0 {
		return rec, nil
	}
	if b[0] != formatVersion {
		return rec, fmt.Errorf("%w: format version %d (want %d)", ErrCorrupt, b[0], formatVersion)
	}
	d := decoder{b: b[1:]}
	nb := d.uvarint("block count")
	if nb > 1000 {
		d.fail(fmt.Sprintf("%d blocks", nb))
	}
	for i := uint64(0); i < nb && d.err == nil; i++ {
		count, k, size := d.uvarint("block count"), d.uvarint("block k"), d.uvarint("block size")
		bits := d.bytes(size, "block bits")
		if d.err != nil {
			break
		}
		blk, err := urlfilter.BlockFromBytes(bits, int(min(k, 64)))
		if err != nil {
			return rec, fmt.Errorf("%w: block %d: %v", ErrCorrupt, i, err)
		}
		rec.blocks = append(rec.blocks, block{Block: blk, count: count})
	}
	na := d.uvarint("audit count")
	for i := uint64(0); i < na && d.err == nil; i++ {
		id := d.bytes(d.uvarint("audit id length"), "audit id")
		rec.audit = append(rec.audit, string(id))
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail(fmt.Sprintf("%d trailing bytes", len(d.b)))
	}
	return rec, d.err
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, what)
	}
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated " + what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("truncated " + what)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
