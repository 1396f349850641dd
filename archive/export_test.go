package archive

// SetProcessDead replaces the check of whether a .open file's writer is
// gone, and returns a function restoring it.
func SetProcessDead(f func(pid int) bool) (restore func()) {
	old := processDead
	processDead = f
	return func() { processDead = old }
}
