package crawler

import (
	"math"
	"sync"
	"time"
)

// delayHist counts durations in buckets 5% wide (from 1 ms; the first
// bucket holds everything below), in constant memory however long the
// crawl runs. Quantile answers within 5% of the exact value.
type delayHist struct {
	mu     sync.Mutex
	n      int64
	counts [delayBuckets]int64
}

const (
	delayBuckets = 400 // 1 ms × 1.05^399 ≈ 3.3 days; longer ones count in the last
	delayGrowth  = 1.05
)

func (h *delayHist) add(d time.Duration) {
	i := 0
	if ms := float64(d) / float64(time.Millisecond); ms > 1 {
		i = min(int(math.Log(ms)/math.Log(delayGrowth))+1, delayBuckets-1)
	}
	h.mu.Lock()
	h.counts[i]++
	h.n++
	h.mu.Unlock()
}

// quantile returns the upper bound of the bucket holding the q-th quantile
// (0 when nothing was added).
func (h *delayHist) quantile(q float64) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var cum int64
	for i, c := range h.counts {
		cum += c
		if cum >= rank {
			return time.Duration(math.Pow(delayGrowth, float64(i)) * float64(time.Millisecond))
		}
	}
	return 0
}
