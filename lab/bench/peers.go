package bench

import (
	"github.com/bits-and-blooms/bloom/v3"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

// FilterVariants are the rows of go run ./cmd/bloomcrawl-lab filter, in its
// default order: the product's (filterbench.FilterVariants) and FilterPeers.
var FilterVariants = []string{"mdbf", "mdbf-routed", "classic", "blocked", "exact", "default", "default-single",
	"peer-bits-and-blooms", "peer-map", "scalable-3x"}

// FilterPeers are the filters of other libraries that filterbench.Filter
// measures beside ours in the lab (filterbench.FilterOptions.Peers).
var FilterPeers = map[string]func(n uint64, fp float64) filterbench.Peer{
	"peer-bits-and-blooms": func(n uint64, fp float64) filterbench.Peer {
		b := bloom.NewWithEstimates(uint(n), fp)
		return filterbench.Peer{Impl: "github.com/bits-and-blooms/bloom/v3", Add: b.TestAndAddString, Test: b.TestString,
			Bits:      func() uint64 { return uint64(b.Cap()) },
			Predicted: func() float64 { return urlfilter.ClassicFP(uint64(b.Cap()), int(b.K()), uint64(b.ApproximatedSize())) }}
	},
}
