//go:build !unix

package storage

import "errors"

// freeBytes is not available without statfs(2): the free-space watch is
// off.
func freeBytes(string) (int64, error) { return 0, errors.ErrUnsupported }

func mountPoint(string) string { return "" }

func memtableBytes(string) int64 { return 0 }
