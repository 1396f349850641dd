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

// The keys Measure writes: the seen-record and the plain id list.
const measureBloomKey, measurePlainKey = "measure/bloom", "measure/plain"

// Measure records o.IDs ids under one key of st with options ro and
// measures the cost and accuracy of seen-records against a plain id list
// stored in the same Store (see Measurement). It writes keys beginning
// "measure/" to st and deletes them at the end.
func Measure(ctx context.Context, st Store, ro Options, o MeasureOptions) (Measurement, error) {
	o = o.withDefaults()
	ro.Audit = false
	r, err := New(st, &ro)
	if err != nil {
		return Measurement{}, err
	}
	ro = r.o
	o.Batch = min(o.Batch, ro.MaxIDs)
	ms := &measurer{st: st, r: r, ro: ro, o: o,
		m: Measurement{Options: ro, IDs: o.IDs, IDLen: o.IDLen, Batch: o.Batch, Probes: o.Probes, TargetFP: ro.FP,
			BlockBits: r.bits, BlockK: r.k}}
	defer func() {
		r.Delete(context.WithoutCancel(ctx), measureBloomKey)
		st.UpdateSeenRecord(context.WithoutCancel(ctx), measurePlainKey, 0, func([]byte) ([]byte, error) { return nil, nil })
	}()
	r.Delete(ctx, measureBloomKey)

	added, rec, err := ms.record(ctx)
	if err != nil {
		return ms.m, err
	}
	if err := ms.timing(ctx, added); err != nil {
		return ms.m, err
	}
	if err := ms.falsePositives(ctx, rec); err != nil {
		return ms.m, err
	}
	if err := ms.window(ctx); err != nil {
		return ms.m, err
	}
	return ms.m, nil
}

// withDefaults returns o with its zero fields set to their defaults.
func (o MeasureOptions) withDefaults() MeasureOptions {
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
	return o
}

// measurer runs the steps of Measure; each step fills in its part of m.
type measurer struct {
	st Store
	r  *Records
	ro Options // r's options, defaults applied
	o  MeasureOptions
	m  Measurement
}

// record adds o.IDs ids to the seen-record and stores them as a plain
// list, and notes the sizes of both. It returns the ids and the record.
func (ms *measurer) record(ctx context.Context) ([]string, Record, error) {
	r, m := ms.r, &ms.m
	added := make([]string, ms.o.IDs)
	for i := range added {
		added[i] = measureID("id", i, ms.o.IDLen)
	}
	for c := range slices.Chunk(added, ms.ro.MaxIDs) {
		if _, err := r.Add(ctx, measureBloomKey, c); err != nil {
			return nil, Record{}, err
		}
	}
	plain := strings.Join(added, "\n")
	if err := ms.st.UpdateSeenRecord(ctx, measurePlainKey, ms.ro.TTL, func([]byte) ([]byte, error) { return []byte(plain), nil }); err != nil {
		return nil, Record{}, err
	}
	val, _, err := ms.st.SeenRecord(ctx, measureBloomKey)
	if err != nil {
		return nil, Record{}, err
	}
	m.BloomBytes, m.PlainBytes = len(val), len(plain)
	rec, err := r.Show(ctx, measureBloomKey, true)
	if err != nil {
		return nil, Record{}, err
	}
	m.RecordBlocks = len(rec.Blocks)
	for _, b := range rec.Blocks {
		m.BloomSeedBytes += len(b.Seed)
	}
	return added, rec, nil
}

// timing times test calls of o.Batch ids, half of them recorded (from
// added), half fresh, against the seen-record and the plain list, in
// o.Rounds interleaved rounds.
func (ms *measurer) timing(ctx context.Context, added []string) error {
	o, m := ms.o, &ms.m
	batch := make([]string, o.Batch)
	for i := range batch {
		if i%2 == 0 {
			batch[i] = added[(i*7919)%len(added)]
		} else {
			batch[i] = measureID("nx", i, o.IDLen)
		}
	}
	for range o.Rounds {
		t0 := time.Now()
		for range o.Calls {
			if _, err := ms.r.Test(ctx, measureBloomKey, batch); err != nil {
				return err
			}
		}
		t1 := time.Now()
		for range o.Calls {
			if _, err := ms.plainTest(ctx, batch); err != nil {
				return err
			}
		}
		t2 := time.Now()
		m.BloomRoundNs = append(m.BloomRoundNs, float64(t1.Sub(t0).Nanoseconds())/float64(o.Calls))
		m.PlainRoundNs = append(m.PlainRoundNs, float64(t2.Sub(t1).Nanoseconds())/float64(o.Calls))
	}
	m.BloomTestNs, m.PlainTestNs = median(m.BloomRoundNs), median(m.PlainRoundNs)
	return nil
}

// plainTest is the plain list's test call: it loads the list, builds a set
// and looks up each id of batch.
func (ms *measurer) plainTest(ctx context.Context, batch []string) ([]bool, error) {
	v, _, err := ms.st.SeenRecord(ctx, measurePlainKey)
	if err != nil {
		return nil, err
	}
	set := make(map[string]struct{}, ms.o.IDs)
	for id := range strings.SplitSeq(string(v), "\n") {
		set[id] = struct{}{}
	}
	out := make([]bool, len(batch))
	for i, id := range batch {
		_, out[i] = set[id]
	}
	return out, nil
}

// falsePositives tests o.Probes ids never added, against exact truth, and
// predicts the rate from rec's blocks.
func (ms *measurer) falsePositives(ctx context.Context, rec Record) error {
	m := &ms.m
	probes := make([]string, ms.o.Probes)
	for i := range probes {
		probes[i] = measureID("fp", i, ms.o.IDLen)
	}
	for c := range slices.Chunk(probes, ms.ro.MaxIDs) {
		got, err := ms.r.Test(ctx, measureBloomKey, c)
		if err != nil {
			return err
		}
		for _, s := range got {
			if s {
				m.FalsePositives++
			}
		}
	}
	m.MeasuredFP = float64(m.FalsePositives) / float64(ms.o.Probes)
	miss := 1.0
	for _, b := range rec.Blocks {
		miss *= 1 - urlfilter.ClassicFP(b.Bits, b.K, b.Count)
	}
	m.PredictedFP = 1 - miss
	return nil
}

// window feeds the emptied key a longer stream and looks at it after each
// of o.After ids, appending a WindowPoint for each to m.Window.
func (ms *measurer) window(ctx context.Context) error {
	if _, err := ms.r.Delete(ctx, measureBloomKey); err != nil {
		return err
	}
	after := slices.Clone(ms.o.After)
	slices.Sort(after)
	stream := make([]string, 0, after[len(after)-1])
	for _, n := range after {
		for len(stream) < n {
			stream = append(stream, measureID("w", len(stream), ms.o.IDLen))
		}
		for c := range slices.Chunk(stream[len(stream)-(n-lastAfter(ms.m.Window)):], ms.ro.MaxIDs) {
			if _, err := ms.r.Add(ctx, measureBloomKey, c); err != nil {
				return err
			}
		}
		p, err := ms.windowPoint(ctx, stream, n)
		if err != nil {
			return err
		}
		ms.m.Window = append(ms.m.Window, p)
	}
	return nil
}

// windowPoint tests every id of stream, the first n ids fed to the key,
// and says which of them the key remembers.
func (ms *measurer) windowPoint(ctx context.Context, stream []string, n int) (WindowPoint, error) {
	ro := ms.ro
	p := WindowPoint{After: n, Last: min(n, (ro.Blocks-1)*ro.Capacity)}
	hits := make([]bool, 0, n)
	for c := range slices.Chunk(stream, ro.MaxIDs) {
		got, err := ms.r.Test(ctx, measureBloomKey, c)
		if err != nil {
			return p, err
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
	rec, err := ms.r.Show(ctx, measureBloomKey, false)
	if err != nil {
		return p, err
	}
	p.Blocks = len(rec.Blocks)
	return p, nil
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
