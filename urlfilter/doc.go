// Package urlfilter owns the URL filter of bloomcrawl: URL
// canonicalization, scope rules, and the URL filters with their sizing
// math, snapshots and false-positive accounting; and Block, the small
// Bloom filter that package seen stores its seen-records in. It imports
// only the standard library, xxhash and x/net/idna.
//
// # Canonicalization and scope
//
// Canonicalize turns an href and its base URL into the dedup key (see
// Canonicalizer.Canonicalize for the exact rules); canonicalizing twice
// equals canonicalizing once (FuzzCanonicalize checks it). Scope.Check says
// whether a canonical URL may be crawled and, if not, why.
//
// # URL filters
//
// Every Filter is safe for concurrent use. TestAndAdd is atomic: Test runs
// lock-free on atomic loads; when a key looks new, the add path takes one
// of 256 mutexes chosen by the key's hash, re-tests and sets the bits with
// atomic OR, so of two goroutines adding the same new key exactly one sees
// "not seen" (a lock-free OR on several words cannot decide that: both
// callers can each flip a different bit first). Each key is hashed once
// (64-bit xxHash); its bit positions come from Kirsch–Mitzenmacher double
// hashing g_i = h1 + i·h2 with h2 a remix of h1, reduced by multiply-shift.
//
// Sizing: m = n·ln(1/ε)/ln²2 bits, k = (m/n)·ln 2; or, with
// Options.BitsPerKey, m = n·bits and the best k for that m, so variants can
// be compared at equal memory. Stats.PredictedFP is each variant's formula
// at the current fill.
//
//   - classic: m bits, k probes anywhere. Guarantee: no false negatives;
//     FP (1 − e^(−kn/m))^k, ≤ ε up to Capacity, then it saturates. Cost:
//     1.44·log2(1/ε) bits per key, k cache misses per test.
//   - blocked: all of a key's k bits in one 512-bit block (one cache line),
//     9 bits per position from a remix of the hash. FP: the Poisson mixture
//     Σ_i P(i; n/blocks)·(1 − (1 − 1/512)^(k·i))^k, and the sizing solves it
//     for ε, which costs 3% more bits than classic at ε = 0.01 (8% at
//     0.001). Cost: one cache miss per test. Saturates past Capacity.
//   - mdbf: the multi-dimensional Bloom filter (MDBF), read as follows
//     (the paper gives no formulas, no parameter values and no
//     measurements). S groups (Options.Groups, default 2); group s has V1 of
//     N bits and V2 of N/k bits, and k = k1 + k2 hash functions: k1 probe V1
//     and k2 probe V2. The paper does not say how k is split; by default
//     k2 = 1 and k1 = k − 1, because one probe into a vector k times smaller
//     loads it about as much as k − 1 probes load V1, and k is the value that
//     minimises the predicted FP (Options.K1/K2/GroupBits override all of
//     this). Each group has its own hash functions (double hashing over
//     mix64(h + (s+1)·φ)). Insert sets the key in every group ("对于每组位
//     向量"), and a query reports present if any group has all its bits set
//     ("若有一组位向量全为1"). So every group holds all n keys and
//     f_s = (1 − e^(−k1·n/N))^k1 · (1 − e^(−k2·k·n/N))^k2,
//     f = 1 − (1 − f_s)^S ≈ S·f_s. The "any group" rule multiplies the false
//     positives by S while every group costs a full filter's memory: at the
//     same target it needs about twice the memory of classic for S = 2 (see
//     the bench figures), and it is slower (S·k probes). Sized from ε, each
//     group is sized for about ε/S.
//   - mdbf-routed: a reading that makes the groups pay off in speed at
//     least: the key's hash picks one group, where it is set and tested;
//     each group holds ≈ n/S keys and f = f_s(n/S). At equal memory this is
//     a partitioned classic filter with a smaller V2, and measures the same
//     as classic.
//   - exact: a sharded set of the keys themselves. No false positives; the
//     ground truth. Memory: the keys plus about 28 bytes each.
//   - scalable (the default): layers of blocked filters (Options.Layer can
//     make them classic); layer i holds Capacity·Growth^i keys at
//     ε·(1−r)·r^i (Growth 2, r = Options.Tightening 0.5). A key is new only
//     if no layer has it; new keys go to the newest layer; a full layer
//     starts the next. Guarantee: the compound FP 1 − Π(1 − f_i) stays ≤ ε
//     however many keys arrive; it never saturates. Cost: at Capacity it is
//     a blocked filter sized for ε/2 (1.2× classic's bits at ε = 0.01);
//     past Capacity memory grows by Growth per layer, plus
//     log2(1/r)/ln 2 bits per key per layer; Test probes one cache line per
//     layer.
//   - chain: the rotating ring of Bloom generations. G generations (Options.Generations,
//     default 5), each sized for ε/G so the ring's compound FP stays ≤ ε;
//     insert into the active one, test against all. Count mode (Window W):
//     a generation holds c = ceil(W/(G−1)) keys; the last (G−1)·c ≥ W keys
//     recorded (TestAndAdd returned false) are always remembered, keys
//     recorded more than G·c keys ago are forgotten. Time mode (Period P):
//     one generation per period; keys recorded within the last (G−1)·P are
//     remembered, older than G·P forgotten; each generation is a scalable
//     filter, so a burst does not saturate it. A repeated key found in an
//     older generation is not re-added, so a recrawl window counts from the
//     first sighting.
//
// The default variant was chosen by `bloomcrawl bench filter` at n = 10M,
// ε = 0.01 on this 2-core machine (same keys, same run; ns are thread CPU
// time and vary by about ±25% between runs): blocked 9.93 bits/URL,
// measured FP 0.00999, Test 141 ns; classic 9.59 bits, 0.01005, 156 ns;
// mdbf (S = 2) 22.16 bits, 0.00976 (theory 0.00971), 306 ns;
// bits-and-blooms 9.59 bits, 0.01005, 240 ns; default (scalable of blocked
// layers) 11.53 bits, 0.00503, 36 ns per key through TestBatch (the path
// the crawler uses, see Batches) and 163 ns per Test. It is the only
// variant that keeps its promise past Capacity (fed 3× capacity: measured
// 0.00746 ≤ 0.01). The multi-dimensional filter needs 2.3× the memory of
// classic for the same error in the faithful reading and measures the same
// as classic in the routed one, so neither earns the default.
//
// # Batches
//
// A Test of a large filter waits for one cache miss to memory, and single
// calls overlap little of it. TestBatch and TestAndAddBatch hash 64 keys at
// a time and prefetch each key's cache line, in every layer, as soon as its
// hash is known (PREFETCHT0 on amd64, PRFM on arm64, nothing elsewhere),
// then test the 64 lines, which have been arriving meanwhile: the misses
// overlap each other and the hashing, about 4× faster per key than Test.
// Issuing the 64 prefetches only after all the hashing was slower (the
// CPU's miss buffers overflow), and loads instead of prefetches hold up the
// instructions behind them. TestAndAddBatch tests lock-free this way first
// and takes the locked add path only for keys that look new, so it answers
// exactly as TestAndAdd called in order (a key repeated in the batch is new
// once), atomically. Neither allocates. Only the blocked and scalable
// filters have a batch path; the others answer one key at a time. Every
// filter and Audit also has TestAndAddBatch as a method: frontier.Reserve
// tests a page's links through it, so `bench filter`'s default row measures
// this path and default-single the single calls.
//
// # Predicted against measured
//
// Stats.PredictedFP applies the formula to Stats.Keys, the keys actually
// recorded. A key that arrives as a false positive is not recorded although
// its bits are set, and the keys that were recorded are biased to have set
// new bits, so at high rates (≥ 5%) the measured rate exceeds the formula
// by up to 10% (up to 17% for the unions: mdbf, chain, scalable). Evaluated
// with n = all distinct keys offered, the formula matches (classic, 4
// bits/key, n = 21,663: formula 0.1469, measured 0.1470). At practical
// rates (≤ 1%) the two agree within sampling error.
//
// # Snapshots
//
// WriteTo writes, and ReadFilter reads, a versioned binary format (magic
// "BCUF", version, length, body, xxHash64 checksum). ReadFilter refuses
// truncated, corrupt, unknown-variant or other-version data with an error
// wrapping ErrSnapshot; it never returns a half-loaded filter. Snapshots
// taken while other goroutines add keys may include some of those adds;
// take them when the filter is quiescent for an exact copy.
//
// # Measuring
//
// Audit wraps a filter with an exact shadow set, answers with the truth and
// counts the false positives the filter would have caused. A
// multi-dimensional filter (mdbf, mdbf-routed) describes its shape with
// fmt.Sprint(f), e.g. "mdbf S=2 N=196967 V2=24620 k1=7 k2=1".
package urlfilter
