package seen

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// MeasureOptions configures [Measure]. Zero fields take the defaults.
type MeasureOptions struct {
	IDs    int   // ids recorded under one key; default 5000 (the seen-records design's figure)
	IDLen  int   // bytes per id; default 14 (the seed's article ids)
	Batch  int   // ids per test call; default 100
	Calls  int   // test calls per timing round; default 200
	Rounds int   // timing rounds (Bloom and plain interleaved); default 7
	Probes int   // fresh ids tested for the false-positive rate; default 100,000
	After  []int // window snapshots: ids added so far; default 1000, 4000, 4500, 5000, 5001, 6000, 7500, 10000
}

// Measurement is what [Measure] found: the seen-records design's comparison of Bloom
// blocks with a plain id list, measured false positives against exact
// truth, and the window.
type Measurement struct {
	Options   Options
	IDs       int
	IDLen     int
	BlockBits uint64
	BlockK    int

	RecordBlocks   int // blocks in the record of IDs ids
	BloomBytes     int // stored value per key, binary (this package's form)
	BloomSeedBytes int // the same blocks as the seed's "count::base64(bits)" strings
	PlainBytes     int // the ids as a newline-separated list

	Batch        int
	BloomTestNs  float64 // median ns per test call of Batch ids (load + decode + test)
	PlainTestNs  float64 // the same with the plain list (load + build a set + look up)
	BloomRoundNs []float64
	PlainRoundNs []float64

	Probes         int
	FalsePositives int
	MeasuredFP     float64 // of ids never added, the fraction answered "seen"
	PredictedFP    float64 // 1 − Π(1 − f_block) over the record's blocks
	TargetFP       float64 // Options.FP, per block at capacity

	Window []WindowPoint
}

// WindowPoint says which ids a key remembers after After ids.
type WindowPoint struct {
	After   int
	Blocks  int
	Last    int // the last min(After, (Blocks−1)·Capacity) ids …
	LastHit int // … of which this many test seen (must be all)
	// ByAge[i] is the fraction of the ids of age i·Capacity to
	// (i+1)·Capacity−1 (0 = newest) that test seen.
	ByAge []float64
}

// measureID returns the i-th id of a stream, n bytes long: "id" and
// zero-padded decimal digits, as 14-byte article ids look.
func measureID(prefix string, i, n int) string {
	s := fmt.Sprintf("%s%0*d", prefix, max(n-len(prefix), 1), i)
	return s
}

// Measure records o.IDs ids under one key of st with options ro and
// measures the cost and accuracy of seen-records against a plain id list
// stored in the same Store (see Measurement). It writes keys beginning
// "measure/" to st and deletes them at the end.
func Measure(ctx context.Context, st Store, ro Options, o MeasureOptions) (Measurement, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.IDs, 5000)
	def(&o.IDLen, 14)
	def(&o.Batch, 100)
	def(&o.Calls, 200)
	def(&o.Rounds, 7)
	def(&o.Probes, 100_000)
	if len(o.After) == 0 {
		o.After = []int{1000, 4000, 4500, 5000, 5001, 6000, 7500, 10000}
	}
	ro.Audit = false
	r, err := New(st, &ro)
	if err != nil {
		return Measurement{}, err
	}
	ro = r.o
	o.Batch = min(o.Batch, ro.MaxIDs)
	m := Measurement{Options: ro, IDs: o.IDs, IDLen: o.IDLen, Batch: o.Batch, Probes: o.Probes, TargetFP: ro.FP,
		BlockBits: r.bits, BlockK: r.k}
	const bloomKey, plainKey = "measure/bloom", "measure/plain"
	defer func() {
		r.Delete(context.WithoutCancel(ctx), bloomKey)
		st.UpdateSeenRecord(context.WithoutCancel(ctx), plainKey, 0, func([]byte) ([]byte, error) { return nil, nil })
	}()
	r.Delete(ctx, bloomKey)

	added := make([]string, o.IDs)
	for i := range added {
		added[i] = measureID("id", i, o.IDLen)
	}
	for c := range slices.Chunk(added, ro.MaxIDs) {
		if _, err := r.Add(ctx, bloomKey, c); err != nil {
			return m, err
		}
	}
	plain := strings.Join(added, "\n")
	if err := st.UpdateSeenRecord(ctx, plainKey, ro.TTL, func([]byte) ([]byte, error) { return []byte(plain), nil }); err != nil {
		return m, err
	}
	val, _, err := st.SeenRecord(ctx, bloomKey)
	if err != nil {
		return m, err
	}
	m.BloomBytes, m.PlainBytes = len(val), len(plain)
	rec, err := r.Show(ctx, bloomKey, true)
	if err != nil {
		return m, err
	}
	m.RecordBlocks = len(rec.Blocks)
	for _, b := range rec.Blocks {
		m.BloomSeedBytes += len(b.Seed)
	}

	// Timing: each call tests Batch ids, half recorded, half fresh.
	batch := make([]string, o.Batch)
	for i := range batch {
		if i%2 == 0 {
			batch[i] = added[(i*7919)%len(added)]
		} else {
			batch[i] = measureID("nx", i, o.IDLen)
		}
	}
	plainTest := func() ([]bool, error) {
		v, _, err := st.SeenRecord(ctx, plainKey)
		if err != nil {
			return nil, err
		}
		set := make(map[string]struct{}, o.IDs)
		for id := range strings.SplitSeq(string(v), "\n") {
			set[id] = struct{}{}
		}
		out := make([]bool, len(batch))
		for i, id := range batch {
			_, out[i] = set[id]
		}
		return out, nil
	}
	for range o.Rounds {
		t0 := time.Now()
		for range o.Calls {
			if _, err := r.Test(ctx, bloomKey, batch); err != nil {
				return m, err
			}
		}
		t1 := time.Now()
		for range o.Calls {
			if _, err := plainTest(); err != nil {
				return m, err
			}
		}
		t2 := time.Now()
		m.BloomRoundNs = append(m.BloomRoundNs, float64(t1.Sub(t0).Nanoseconds())/float64(o.Calls))
		m.PlainRoundNs = append(m.PlainRoundNs, float64(t2.Sub(t1).Nanoseconds())/float64(o.Calls))
	}
	m.BloomTestNs, m.PlainTestNs = median(m.BloomRoundNs), median(m.PlainRoundNs)

	// False positives against exact truth: ids never added.
	probes := make([]string, o.Probes)
	for i := range probes {
		probes[i] = measureID("fp", i, o.IDLen)
	}
	for c := range slices.Chunk(probes, ro.MaxIDs) {
		got, err := r.Test(ctx, bloomKey, c)
		if err != nil {
			return m, err
		}
		for _, s := range got {
			if s {
				m.FalsePositives++
			}
		}
	}
	m.MeasuredFP = float64(m.FalsePositives) / float64(o.Probes)
	miss := 1.0
	for _, b := range rec.Blocks {
		miss *= 1 - urlfilter.ClassicFP(b.Bits, b.K, b.Count)
	}
	m.PredictedFP = 1 - miss

	// The window: one key fed a longer stream, looked at after each After.
	if _, err := r.Delete(ctx, bloomKey); err != nil {
		return m, err
	}
	after := slices.Clone(o.After)
	slices.Sort(after)
	stream := make([]string, 0, after[len(after)-1])
	for _, n := range after {
		for len(stream) < n {
			stream = append(stream, measureID("w", len(stream), o.IDLen))
		}
		for c := range slices.Chunk(stream[len(stream)-(n-lastAfter(m.Window)):], ro.MaxIDs) {
			if _, err := r.Add(ctx, bloomKey, c); err != nil {
				return m, err
			}
		}
		p := WindowPoint{After: n, Last: min(n, (ro.Blocks-1)*ro.Capacity)}
		hits := make([]bool, 0, n)
		for c := range slices.Chunk(stream, ro.MaxIDs) {
			got, err := r.Test(ctx, bloomKey, c)
			if err != nil {
				return m, err
			}
			hits = append(hits, got...)
		}
		for i := n - p.Last; i < n; i++ {
			if hits[i] {
				p.LastHit++
			}
		}
		for age := 0; age < n; age += ro.Capacity {
			hit, tot := 0, 0
			for a := age; a < min(n, age+ro.Capacity); a++ {
				tot++
				if hits[n-1-a] {
					hit++
				}
			}
			p.ByAge = append(p.ByAge, float64(hit)/float64(tot))
		}
		rec, err := r.Show(ctx, bloomKey, false)
		if err != nil {
			return m, err
		}
		p.Blocks = len(rec.Blocks)
		m.Window = append(m.Window, p)
	}
	return m, nil
}

func lastAfter(w []WindowPoint) int {
	if len(w) == 0 {
		return 0
	}
	return w[len(w)-1].After
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
