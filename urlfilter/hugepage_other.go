//go:build !linux

package urlfilter

func adviseHuge(w []uint64) {}
