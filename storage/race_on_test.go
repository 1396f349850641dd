//go:build race

package storage

// raceEnabled shrinks the slowest tests under the race detector, which
// makes page generation and compression about ten times slower.
const raceEnabled = true
