package mapped

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// File is an unlinked file whose regions hold arrays (see the package
// comment). The file only grows at its end; what it holds on disk is what
// is mapped now. Safe for concurrent use.
type File struct {
	mu      sync.Mutex
	f       *os.File // nil once closed
	end     int64
	regions map[uintptr]region // by address of the first byte
	mapped  int64              // bytes mapped now
	err     error              // first failure to map (the array went to the heap)
	punch   error              // first failure to punch a hole (blocks kept until Close)
	min     int
}

type region struct {
	b   []byte
	off int64
}

// Linux fallocate modes (linux/falloc.h).
const (
	fallocKeepSize  = 0x01
	fallocPunchHole = 0x02
)

// Create creates the unlinked file in dir; the system removes it when it
// is closed or the process ends.
func Create(dir string) (*File, error) {
	f, err := TempFile(dir, "bloomcrawl-arrays-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("mapped arrays: %w", err)
	}
	return &File{f: f, regions: map[uintptr]region{}, min: MinBytes}, nil
}

// alloc maps size zeroed bytes, nil if it cannot (the reason is kept for
// Err).
func (m *File) alloc(size int) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return nil
	}
	pg := int64(os.Getpagesize())
	n := (int64(size) + pg - 1) / pg * pg
	off := m.end
	fd := int(m.f.Fd())
	if err := syscall.Fallocate(fd, 0, off, n); err != nil {
		m.fail(fmt.Errorf("mapped arrays: allocate %d bytes: %w", n, err))
		return nil
	}
	b, err := syscall.Mmap(fd, off, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		syscall.Fallocate(fd, fallocPunchHole|fallocKeepSize, off, n)
		m.fail(fmt.Errorf("mapped arrays: map %d bytes: %w", n, err))
		return nil
	}
	m.end += n
	m.mapped += n
	m.regions[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = region{b: b, off: off}
	return b[:size]
}

func (m *File) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// free unmaps the region at addr and releases its blocks; an address it
// did not map (a heap array) is ignored.
func (m *File) free(addr uintptr) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.regions[addr]
	if !ok {
		return
	}
	delete(m.regions, addr)
	m.mapped -= int64(len(r.b))
	syscall.Munmap(r.b)
	// the blocks stay allocated if this fails (a file system without hole
	// punching); the file is unlinked, so they are freed when it is closed
	if err := syscall.Fallocate(int(m.f.Fd()), fallocPunchHole|fallocKeepSize, r.off, int64(len(r.b))); err != nil && m.punch == nil {
		m.punch = err
	}
}

// Err returns the first failure to map an array (which then went to the
// heap, e.g. on a full disk); nil for a nil File.
func (m *File) Err() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Bytes returns the bytes mapped now (0 for a nil File).
func (m *File) Bytes() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mapped
}

// Close unmaps every region and closes the file, which frees its blocks.
// No array of m may be used after; arrays made after are on the heap.
func (m *File) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f == nil {
		return nil
	}
	for a, r := range m.regions {
		delete(m.regions, a)
		syscall.Munmap(r.b)
	}
	m.mapped = 0
	err := m.f.Close()
	m.f = nil
	return err
}
