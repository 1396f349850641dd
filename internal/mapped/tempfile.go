package mapped

import "os"

// TempFile creates a file in dir named after pattern (as os.CreateTemp)
// and unlinks it at once: it lives while it is open, and the system
// removes it when it is closed or the process ends, even by kill -9. The
// mapped arrays' File is one; the content-dedup index spills its sketches
// to another.
func TempFile(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
