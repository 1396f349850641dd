//go:build !unix

package archive

// noProcess cannot tell here: .open files are left as they are.
func noProcess(int) bool { return false }
