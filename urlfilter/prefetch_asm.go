//go:build (amd64 || arm64) && !purego

package urlfilter

// prefetch asks the CPU to bring the cache line at p into the cache without
// waiting for it (PREFETCHT0 on amd64, PRFM PLDL1KEEP on arm64). Unlike a load it retires at once and never
// faults, so the instructions after it (hashing the next keys) run while the
// line arrives. It has no effect on the program's semantics.
//
//go:noescape
func prefetch(p *uint64)
