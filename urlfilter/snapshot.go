package urlfilter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Snapshot format, version 1 (all integers little-endian):
//
//	magic    "BCUF" (4 bytes)
//	version  1 byte (SnapshotVersion)
//	length   uint64, bytes of body
//	body     variant name (uvarint length + bytes), then the variant's
//	         parameters, counters and bit words; scalable and chain nest
//	         their layers/generations as bodies
//	checksum uint64, xxHash64 of every byte before it
//
// ReadFilter verifies magic, version, length and checksum before it decodes
// anything, and decodes with bounds checks, so a truncated or corrupt
// snapshot is refused, never half-loaded.

// SnapshotVersion is the snapshot format version WriteTo writes.
const SnapshotVersion = 1

var snapshotMagic = [4]byte{'B', 'C', 'U', 'F'}

// ErrSnapshot is wrapped by every error ReadFilter returns for bad data.
var ErrSnapshot = errors.New("urlfilter: bad snapshot")

// maxSnapshotBody bounds the declared body length (1 TiB) so that a corrupt
// length is refused before anything is read.
const maxSnapshotBody = 1 << 40

type enc struct{ b bytes.Buffer }

func (e *enc) u8(v uint8) { e.b.WriteByte(v) }
func (e *enc) u64(v uint64) {
	var x [8]byte
	binary.LittleEndian.PutUint64(x[:], v)
	e.b.Write(x[:])
}
func (e *enc) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *enc) str(s string) {
	var x [binary.MaxVarintLen64]byte
	e.b.Write(x[:binary.PutUvarint(x[:], uint64(len(s)))])
	e.b.WriteString(s)
}
func (e *enc) words(w []uint64) {
	e.u64(uint64(len(w)))
	e.b.Grow(8 * len(w))
	var x [8]byte
	for i := range w {
		binary.LittleEndian.PutUint64(x[:], atomic.LoadUint64(&w[i]))
		e.b.Write(x[:])
	}
}

type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrSnapshot, fmt.Sprintf(format, a...))
	}
}
func (d *dec) need(n uint64, what string) bool {
	if d.err != nil {
		return false
	}
	if uint64(len(d.b)) < n {
		d.fail("%s: need %d bytes, %d left", what, n, len(d.b))
		return false
	}
	return true
}
func (d *dec) u8(what string) uint8 {
	if !d.need(1, what) {
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}
func (d *dec) u64(what string) uint64 {
	if !d.need(8, what) {
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}
func (d *dec) f64(what string) float64 { return math.Float64frombits(d.u64(what)) }
func (d *dec) str(what string) string {
	if d.err != nil {
		return ""
	}
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail("%s: bad length", what)
		return ""
	}
	d.b = d.b[k:]
	if !d.need(n, what) {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
func (d *dec) words(what string, want uint64) []uint64 {
	n := d.u64(what)
	if d.err != nil {
		return nil
	}
	if n != want {
		d.fail("%s: %d words, parameters imply %d", what, n, want)
		return nil
	}
	if n > uint64(len(d.b))/8 || !d.need(8*n, what) {
		d.fail("%s: %d words, only %d bytes left", what, n, len(d.b))
		return nil
	}
	w := alignedWords(n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(d.b[8*i:])
	}
	d.b = d.b[8*n:]
	return w
}
func (d *dec) rangeInt(what string, v, lo, hi uint64) {
	if d.err == nil && (v < lo || v > hi) {
		d.fail("%s %d out of range [%d, %d]", what, v, lo, hi)
	}
}
func (d *dec) rangeFloat(what string, v, lo, hi float64) {
	if d.err == nil && !(v >= lo && v <= hi) {
		d.fail("%s %g out of range [%g, %g]", what, v, lo, hi)
	}
}

// writeSnapshot frames body with magic, version, length and checksum.
func writeSnapshot(w io.Writer, body func(e *enc)) (int64, error) {
	var e enc
	body(&e)
	var hdr [13]byte
	copy(hdr[:4], snapshotMagic[:])
	hdr[4] = SnapshotVersion
	binary.LittleEndian.PutUint64(hdr[5:], uint64(e.b.Len()))
	h := xxhash.New()
	h.Write(hdr[:])
	h.Write(e.b.Bytes())
	var sum [8]byte
	binary.LittleEndian.PutUint64(sum[:], h.Sum64())
	var total int64
	for _, p := range [][]byte{hdr[:], e.b.Bytes(), sum[:]} {
		n, err := w.Write(p)
		total += int64(n)
		if err != nil {
			return total, fmt.Errorf("urlfilter: write snapshot: %w", err)
		}
	}
	return total, nil
}

// ReadFilter reads a snapshot written by a Filter's WriteTo and returns the
// filter, ready for use. It returns an error wrapping ErrSnapshot, saying
// what was wrong, for data that is truncated, corrupt (checksum mismatch or
// impossible parameters), not a snapshot, or of another format version. It
// reads exactly one snapshot from r.
func ReadFilter(r io.Reader) (Filter, error) {
	var hdr [13]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty input", ErrSnapshot)
		}
		return nil, fmt.Errorf("%w: truncated header (%d of 13 bytes): %v", ErrSnapshot, n, err)
	}
	if !bytes.Equal(hdr[:4], snapshotMagic[:]) {
		return nil, fmt.Errorf("%w: not a urlfilter snapshot (magic %q)", ErrSnapshot, hdr[:4])
	}
	if hdr[4] != SnapshotVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads version %d", ErrSnapshot, hdr[4], SnapshotVersion)
	}
	length := binary.LittleEndian.Uint64(hdr[5:])
	if length > maxSnapshotBody {
		return nil, fmt.Errorf("%w: body length %d too large", ErrSnapshot, length)
	}
	var body bytes.Buffer
	if n, err := io.CopyN(&body, r, int64(length)); err != nil {
		return nil, fmt.Errorf("%w: truncated body (%d of %d bytes): %v", ErrSnapshot, n, length, err)
	}
	var sum [8]byte
	if n, err := io.ReadFull(r, sum[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated checksum (%d of 8 bytes): %v", ErrSnapshot, n, err)
	}
	h := xxhash.New()
	h.Write(hdr[:])
	h.Write(body.Bytes())
	if got, want := h.Sum64(), binary.LittleEndian.Uint64(sum[:]); got != want {
		return nil, fmt.Errorf("%w: checksum mismatch (computed %016x, stored %016x): data corrupt", ErrSnapshot, got, want)
	}
	d := &dec{b: body.Bytes()}
	f := decodeFilter(d, 0)
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes after the filter", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// encodeFilter writes f's variant name and payload.
func encodeFilter(e *enc, f Filter) {
	switch f := f.(type) {
	case *classic:
		e.str(VariantClassic)
		e.u64(f.m)
		e.u64(uint64(f.k))
		e.u64(f.keys.Load())
		e.u64(f.capacity)
		e.f64(f.target)
		e.words(f.words)
	case *blocked:
		e.str(VariantBlocked)
		e.u64(f.nblocks)
		e.u64(uint64(f.k))
		e.u64(f.keys.Load())
		e.u64(f.capacity)
		e.f64(f.target)
		e.words(f.words)
	case *mdbf:
		e.str(f.variant())
		e.u64(uint64(f.groups))
		e.u64(f.n1)
		e.u64(f.n2)
		e.u64(uint64(f.k1))
		e.u64(uint64(f.k2))
		e.u64(f.keys.Load())
		e.u64(f.capacity)
		e.f64(f.target)
		e.words(f.words)
	case *exact:
		e.str(VariantExact)
		var keys []string
		f.each(func(k string) { keys = append(keys, k) })
		e.u64(uint64(len(keys)))
		for _, k := range keys {
			e.str(k)
		}
	case *scalable:
		e.str(VariantScalable)
		p := f.o
		e.u64(p.capacity)
		e.f64(p.target)
		e.f64(p.bitsPerKey)
		e.f64(p.growth)
		e.f64(p.tightening)
		e.str(p.layer)
		ls := *f.layers.Load()
		e.u64(uint64(len(ls)))
		for _, l := range ls {
			encodeFilter(e, l)
		}
	case *chain:
		e.str(VariantChain)
		o := f.o
		e.u64(o.Capacity)
		e.f64(o.TargetFP)
		e.f64(o.BitsPerKey)
		e.u64(o.Window)
		e.u64(uint64(o.Period))
		e.f64(o.Growth)
		e.f64(o.Tightening)
		e.str(o.Layer)
		e.u64(uint64(len(f.gens)))
		e.u64(uint64(f.active))
		for i, g := range f.gens {
			e.u64(uint64(f.started[i]))
			encodeFilter(e, g)
		}
	default:
		panic(fmt.Sprintf("urlfilter: cannot snapshot %T", f))
	}
}

func (c *classic) WriteTo(w io.Writer) (int64, error) {
	return writeSnapshot(w, func(e *enc) { encodeFilter(e, c) })
}
func (b *blocked) WriteTo(w io.Writer) (int64, error) {
	return writeSnapshot(w, func(e *enc) { encodeFilter(e, b) })
}
func (f *mdbf) WriteTo(w io.Writer) (int64, error) {
	return writeSnapshot(w, func(e *enc) { encodeFilter(e, f) })
}
func (x *exact) WriteTo(w io.Writer) (int64, error) {
	return writeSnapshot(w, func(e *enc) { encodeFilter(e, x) })
}

// WriteTo holds the growth lock so the layer list is consistent; concurrent
// adds may or may not be included.
func (s *scalable) WriteTo(w io.Writer) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return writeSnapshot(w, func(e *enc) { encodeFilter(e, s) })
}

// WriteTo holds the rotation lock so the ring is consistent.
func (c *chain) WriteTo(w io.Writer) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return writeSnapshot(w, func(e *enc) { encodeFilter(e, c) })
}

const maxWords = maxSnapshotBody / 8

func decodeFilter(d *dec, depth int) Filter {
	if depth > 2 {
		d.fail("filters nested too deep")
		return nil
	}
	variant := d.str("variant")
	if d.err != nil {
		return nil
	}
	switch variant {
	case VariantClassic:
		return decodeClassic(d)
	case VariantBlocked:
		return decodeBlocked(d)
	case VariantMDBF, VariantMDBFRouted:
		return decodeMDBF(d, variant == VariantMDBFRouted)
	case VariantExact:
		return decodeExact(d)
	case VariantScalable:
		return decodeScalable(d, depth)
	case VariantChain:
		return decodeChain(d, depth)
	}
	d.fail("unknown variant %q", variant)
	return nil
}

func decodeClassic(d *dec) Filter {
	m, k, keys, capa, target := d.u64("classic m"), d.u64("classic k"), d.u64("classic keys"), d.u64("classic capacity"), d.f64("classic target")
	d.rangeInt("classic m", m, 64, maxWords*64)
	d.rangeInt("classic k", k, 1, 64)
	d.rangeFloat("classic target", target, 0, 0.5)
	if d.err != nil {
		return nil
	}
	c := &classic{m: m, k: int(k), counted: counted{capacity: capa, target: target}}
	c.words = d.words("classic bits", (m+63)/64)
	c.keys.Store(keys)
	return c
}

func decodeBlocked(d *dec) Filter {
	nb, k, keys, capa, target := d.u64("blocked blocks"), d.u64("blocked k"), d.u64("blocked keys"), d.u64("blocked capacity"), d.f64("blocked target")
	d.rangeInt("blocked blocks", nb, 1, maxWords/8)
	d.rangeInt("blocked k", k, 1, 64)
	d.rangeFloat("blocked target", target, 0, 0.5)
	if d.err != nil {
		return nil
	}
	b := &blocked{nblocks: nb, k: int(k), counted: counted{capacity: capa, target: target}}
	b.words = d.words("blocked bits", nb*8)
	b.keys.Store(keys)
	return b
}

func decodeMDBF(d *dec, routed bool) Filter {
	groups, n1, n2 := d.u64("mdbf groups"), d.u64("mdbf N"), d.u64("mdbf V2 bits")
	k1, k2, keys, capa, target := d.u64("mdbf k1"), d.u64("mdbf k2"), d.u64("mdbf keys"), d.u64("mdbf capacity"), d.f64("mdbf target")
	d.rangeInt("mdbf groups", groups, 1, 64)
	d.rangeInt("mdbf N", n1, 1, maxWords*64)
	d.rangeInt("mdbf V2 bits", n2, 1, maxWords*64)
	d.rangeInt("mdbf k1", k1, 0, 64)
	d.rangeInt("mdbf k2", k2, 0, 64)
	d.rangeFloat("mdbf target", target, 0, 0.5)
	if d.err != nil {
		return nil
	}
	f := newMDBF(1, n1, int(k1), n2, int(k2), routed, capa, target)
	f.groups = int(groups)
	f.words = d.words("mdbf bits", f.gw*groups)
	f.keys.Store(keys)
	return f
}

func decodeExact(d *dec) Filter {
	n := d.u64("exact count")
	if d.err == nil && n > uint64(len(d.b)) {
		d.fail("exact count %d larger than the data", n)
	}
	x := newExact()
	for i := uint64(0); i < n && d.err == nil; i++ {
		k := d.str("exact key")
		if d.err == nil && x.TestAndAdd(k) {
			d.fail("exact key %q repeated", k)
		}
	}
	return x
}

func decodeScalable(d *dec, depth int) Filter {
	s := &scalable{}
	p := &s.o
	p.capacity, p.target, p.bitsPerKey = d.u64("scalable capacity"), d.f64("scalable target"), d.f64("scalable bits per key")
	p.growth, p.tightening, p.layer = d.f64("scalable growth"), d.f64("scalable tightening"), d.str("scalable layer")
	n := d.u64("scalable layers")
	d.rangeInt("scalable capacity", p.capacity, 1, 1<<40)
	d.rangeFloat("scalable target", p.target, 0, 0.5)
	d.rangeFloat("scalable bits per key", p.bitsPerKey, 0, 1024)
	d.rangeFloat("scalable growth", p.growth, 1.5, 16)
	d.rangeFloat("scalable tightening", p.tightening, 1e-9, 1-1e-9)
	d.rangeInt("scalable layers", n, 1, 64)
	if d.err == nil && p.layer != VariantBlocked && p.layer != VariantClassic {
		d.fail("scalable layer variant %q", p.layer)
	}
	var ls []layer
	for i := uint64(0); i < n && d.err == nil; i++ {
		f := decodeFilter(d, depth+1)
		l, ok := f.(layer)
		if d.err == nil && !ok {
			d.fail("scalable layer %d is %T, not a fixed filter", i, f)
		}
		ls = append(ls, l)
	}
	if d.err != nil {
		return nil
	}
	s.layers.Store(&ls)
	return s
}

func decodeChain(d *dec, depth int) Filter {
	var o Options
	o.Variant = VariantChain
	o.Capacity, o.TargetFP, o.BitsPerKey = d.u64("chain capacity"), d.f64("chain target"), d.f64("chain bits per key")
	o.Window, o.Period = d.u64("chain window"), time.Duration(d.u64("chain period"))
	o.Growth, o.Tightening, o.Layer = d.f64("chain growth"), d.f64("chain tightening"), d.str("chain layer")
	g, active := d.u64("chain generations"), d.u64("chain active")
	d.rangeInt("chain generations", g, 2, 1024)
	d.rangeInt("chain active", active, 0, g-1)
	o.Generations = int(g)
	if d.err == nil {
		if err := o.Validate(); err != nil {
			d.fail("chain options: %v", err)
		}
	}
	if d.err != nil {
		return nil
	}
	c := newChainShell(o.withDefaults())
	c.active = int(active)
	for i := range c.gens {
		c.started[i] = int64(d.u64("chain generation start"))
		g, ok := decodeFilter(d, depth+1).(layer)
		if d.err == nil && !ok {
			d.fail("chain generation %d is not a Bloom filter", i)
		}
		c.gens[i] = g
	}
	if d.err != nil {
		return nil
	}
	return c
}
