//go:build !linux

package mapped

// File maps arrays on Linux only (file_linux.go); elsewhere Create returns
// nil and every array is on the heap.
type File struct{ min int }

// Create returns nil: arrays stay on the heap.
func Create(string) (*File, error) { return nil, nil }

func (m *File) alloc(int) []byte { return nil }
func (m *File) free(uintptr)     {}

// Err returns nil.
func (m *File) Err() error { return nil }

// Bytes returns 0.
func (m *File) Bytes() int64 { return 0 }

// Close does nothing.
func (m *File) Close() error { return nil }
