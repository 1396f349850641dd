//go:build !unix

package storage

import "io/fs"

// allocatedSize is the file's apparent size where allocated blocks are not
// available.
func allocatedSize(info fs.FileInfo) int64 { return info.Size() }
