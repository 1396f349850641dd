package urlfilter

import (
	"fmt"
	"testing"
)

// BenchmarkFilters measures TestAndAdd (on fresh keys) and Test for every
// variant at 1M keys, ε = 0.01. Run under the bench lock:
//
//	flock /tmp/bloomcrawl-bench.lock go test -run XXX -bench Filters ./urlfilter
func BenchmarkFilters(b *testing.B) {
	const n = 1 << 20
	keys := make([]string, 2*n)
	for i := range keys {
		keys[i] = key(i)
	}
	for _, v := range append(fixedVariants, VariantChain) {
		b.Run(v+"/TestAndAdd", func(b *testing.B) {
			f := mustNew(b, Options{Variant: v, Capacity: n, TargetFP: 0.01, Window: n})
			i := 0
			for b.Loop() {
				f.TestAndAdd(keys[i&(n-1)])
				i++
			}
		})
		b.Run(v+"/Test", func(b *testing.B) {
			f := mustNew(b, Options{Variant: v, Capacity: n, TargetFP: 0.01, Window: n})
			for _, k := range keys[:n] {
				f.TestAndAdd(k)
			}
			i := 0
			for b.Loop() {
				f.Test(keys[n+i&(n-1)])
				i++
			}
		})
	}
}

func BenchmarkCanonicalize(b *testing.B) {
	hrefs := make([]string, 1024)
	for i := range hrefs {
		hrefs[i] = fmt.Sprintf("../docs/%d/./Page%%7e.html?utm_source=x&b=%d&a=1#top", i, i)
	}
	base, _ := Canonicalize(nil, "https://Example.com/guide/intro/")
	i := 0
	for b.Loop() {
		if _, err := Canonicalize(base, hrefs[i&1023]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
