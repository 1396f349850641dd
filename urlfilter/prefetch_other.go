//go:build !(amd64 || arm64) || purego

package urlfilter

// prefetch is a no-op where there is no assembly prefetch: a batch then
// overlaps the cache misses of its tests only as far as the CPU's
// out-of-order window allows.
func prefetch(p *uint64) {}
