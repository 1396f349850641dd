package urlfilter

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Filter is a concurrent URL filter: a set of keys that answers whether a
// key was added before. Implementations in this package:
// classic, blocked, mdbf, mdbf-routed, exact, scalable, chain, and Audit.
type Filter interface {
	// TestAndAdd reports whether key was seen before and records it. It is
	// atomic: of any number of goroutines calling TestAndAdd with the same
	// new key at the same time, exactly one gets false.
	TestAndAdd(key string) (seen bool)
	// Test reports whether key was seen, without recording it.
	Test(key string) bool
	// Stats describes the filter's size and its predicted error now.
	Stats() Stats
	// WriteTo writes a versioned, checksummed snapshot that ReadFilter reads.
	WriteTo(w io.Writer) (int64, error)
}

// Stats describes a filter at one moment.
type Stats struct {
	Variant     string  // "classic", "blocked", "mdbf", "mdbf-routed", "exact", "scalable", "chain"
	Keys        uint64  // keys recorded (TestAndAdd calls that returned false)
	Bits        uint64  // memory of the membership structure in bits (exact: an estimate of the heap it holds)
	PredictedFP float64 // false-positive rate the formula predicts at the current fill
	Capacity    uint64  // keys the filter was sized for (scalable: current total; chain: guaranteed window)
	TargetFP    float64 // false-positive rate promised at Capacity (0 when sized by bits per key)
	Layers      int     // scalable: layers allocated; chain: generations; otherwise 1
}

// BitsPerKey returns Bits/Keys (Bits/Capacity when empty).
func (s Stats) BitsPerKey() float64 {
	d := s.Keys
	if d == 0 {
		d = s.Capacity
	}
	if d == 0 {
		return 0
	}
	return float64(s.Bits) / float64(d)
}

// Variant names accepted by New.
const (
	VariantDefault    = "default"
	VariantMDBF       = "mdbf"
	VariantMDBFRouted = "mdbf-routed"
	VariantClassic    = "classic"
	VariantBlocked    = "blocked"
	VariantExact      = "exact"
	VariantScalable   = "scalable"
	VariantChain      = "chain"
)

// Variants lists every variant New accepts (besides "" and "default").
var Variants = []string{VariantMDBF, VariantMDBFRouted, VariantClassic, VariantBlocked, VariantExact, VariantScalable, VariantChain}

// DefaultVariant is what "" and "default" build: a scalable filter of blocked
// Bloom layers. It was chosen by `bloomcrawl bench filter` (see the package
// doc): it never saturates, its Test is one cache miss, and its memory at
// Capacity is within 1.25× of a classic filter at the same target.
const DefaultVariant = VariantScalable

// Defaults applied by New for zero Options fields.
const (
	DefaultCapacity    = 1_000_000
	DefaultTargetFP    = 0.001
	DefaultGroups      = 2
	DefaultGenerations = 5
	DefaultGrowth      = 2
	DefaultTightening  = 0.5
)

// Options configures New. The zero value builds the default filter for
// 1,000,000 keys at a false-positive rate of 0.001.
type Options struct {
	// Variant is one of Variants, or "" / "default" for DefaultVariant.
	Variant string
	// Capacity is the number of keys the filter is sized for. Default
	// 1,000,000. Fixed-size variants (classic, blocked, mdbf) saturate past
	// it; scalable grows; chain uses it per generation in time mode.
	Capacity uint64
	// TargetFP is the false-positive rate promised at Capacity, in (0, 0.5).
	// Default 0.001. Ignored when BitsPerKey is set.
	TargetFP float64
	// BitsPerKey, when > 0, sizes the filter by memory instead of by error:
	// Capacity·BitsPerKey bits, with the best k for that size. Used to
	// compare variants at equal memory. Not valid for exact.
	BitsPerKey float64

	// Generations is the number of filters in a chain ring (default 5, ≥ 2).
	Generations int
	// Window makes a chain rotate every ceil(Window/(Generations−1)) keys, so
	// the last Window keys are always remembered.
	Window uint64
	// Period makes a chain rotate when its active generation is Period old,
	// so keys added within the last (Generations−1)·Period are remembered.
	Period time.Duration
	// Now is the chain's clock (nil = time.Now); tests set it.
	Now func() time.Time

	// Groups is S, the number of groups of the multi-dimensional Bloom filter
	// (default 2).
	Groups int
	// K1 and K2 are the hash functions per group into V1 and V2. Both zero
	// (the default) picks k = K1+K2 minimising the predicted FP with K2 = 1.
	K1, K2 int
	// GroupBits is N, the size of V1 in bits (V2 is N/k). When set it
	// overrides the sizing from TargetFP or BitsPerKey.
	GroupBits uint64

	// Growth is the scalable filter's capacity ratio between layers
	// (default 2, ≥ 1.5). Tightening is the ratio r of the error budgets of
	// successive layers, in (0, 1) (default 0.5): layer i is sized for
	// TargetFP·(1−r)·r^i so the compound rate never exceeds TargetFP.
	Growth     float64
	Tightening float64
	// Layer is the variant of the scalable filter's layers and of a chain's
	// generations: "blocked" (default) or "classic".
	Layer string
}

func (o Options) withDefaults() Options {
	if o.Variant == "" || o.Variant == VariantDefault {
		o.Variant = DefaultVariant
	}
	o.Capacity = cmp.Or(o.Capacity, DefaultCapacity)
	if o.TargetFP == 0 && o.BitsPerKey == 0 {
		o.TargetFP = DefaultTargetFP
	}
	o.Groups = cmp.Or(o.Groups, DefaultGroups)
	o.Generations = cmp.Or(o.Generations, DefaultGenerations)
	o.Growth = cmp.Or(o.Growth, DefaultGrowth)
	o.Tightening = cmp.Or(o.Tightening, DefaultTightening)
	o.Layer = cmp.Or(o.Layer, VariantBlocked)
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Validate reports the first invalid field of o (after defaults).
func (o Options) Validate() error {
	o = o.withDefaults()
	switch {
	case o.BitsPerKey == 0 && !(o.TargetFP > 0 && o.TargetFP < 0.5):
		return fmt.Errorf("urlfilter: TargetFP %g out of range (0, 0.5)", o.TargetFP)
	case o.BitsPerKey < 0 || math.IsNaN(o.BitsPerKey) || o.BitsPerKey > 1024:
		return fmt.Errorf("urlfilter: BitsPerKey %g out of range (0, 1024]", o.BitsPerKey)
	case o.Capacity > 1<<40:
		return fmt.Errorf("urlfilter: Capacity %d too large (max 2^40)", o.Capacity)
	case o.Groups < 1 || o.Groups > 64:
		return fmt.Errorf("urlfilter: Groups %d out of range [1, 64]", o.Groups)
	case o.K1 < 0 || o.K2 < 0 || o.K1+o.K2 > 64:
		return fmt.Errorf("urlfilter: K1=%d K2=%d out of range", o.K1, o.K2)
	case o.Generations < 2 || o.Generations > 1024:
		return fmt.Errorf("urlfilter: Generations %d out of range [2, 1024]", o.Generations)
	case o.Growth < 1.5 || o.Growth > 16:
		return fmt.Errorf("urlfilter: Growth %g out of range [1.5, 16]", o.Growth)
	case !(o.Tightening > 0 && o.Tightening < 1):
		return fmt.Errorf("urlfilter: Tightening %g out of range (0, 1)", o.Tightening)
	case o.Layer != VariantBlocked && o.Layer != VariantClassic:
		return fmt.Errorf("urlfilter: Layer %q: want blocked or classic", o.Layer)
	case o.Period < 0:
		return fmt.Errorf("urlfilter: Period %v is negative", o.Period)
	case o.Variant == VariantChain && o.Window == 0 && o.Period == 0:
		return errors.New("urlfilter: chain needs Window or Period")
	case o.Variant == VariantExact && o.BitsPerKey > 0:
		return errors.New("urlfilter: exact cannot be sized by BitsPerKey")
	}
	return nil
}

// New builds a filter from o; see Options for defaults. It returns an error
// naming the offending field for invalid options or an unknown variant.
func New(o Options) (Filter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	switch o.Variant {
	case VariantClassic:
		return newClassicOpts(o.Capacity, o.TargetFP, o.BitsPerKey), nil
	case VariantBlocked:
		return newBlockedOpts(o.Capacity, o.TargetFP, o.BitsPerKey), nil
	case VariantMDBF, VariantMDBFRouted:
		return newMDBFOpts(o), nil
	case VariantExact:
		return newExact(), nil
	case VariantScalable:
		return newScalable(o), nil
	case VariantChain:
		return newChain(o), nil
	}
	return nil, fmt.Errorf("urlfilter: unknown variant %q (want one of default, %v)", o.Variant, Variants)
}

// newFixed builds one fixed-size layer of the given variant.
func newFixed(variant string, capacity uint64, eps, bitsPerKey float64) Filter {
	if variant == VariantClassic {
		return newClassicOpts(capacity, eps, bitsPerKey)
	}
	return newBlockedOpts(capacity, eps, bitsPerKey)
}
