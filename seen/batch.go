package seen

import (
	"context"
	"slices"
)

// AddAll is Add for any number of ids: it records them MaxIDs at a time,
// each batch in its own update. The result counts the ids new to the
// newest block over all batches, and the blocks after the last. On error,
// the batches before the failing one stay recorded.
func (r *Records) AddAll(ctx context.Context, key string, ids []string) (AddResult, error) {
	var total AddResult
	for chunk := range slices.Chunk(ids, r.o.MaxIDs) {
		res, err := r.Add(ctx, key, chunk)
		if err != nil {
			return total, err
		}
		total.Added += res.Added
		total.Blocks = res.Blocks
	}
	return total, nil
}

// TestAll is Test for any number of ids, MaxIDs at a time.
func (r *Records) TestAll(ctx context.Context, key string, ids []string) ([]bool, error) {
	var out []bool
	for chunk := range slices.Chunk(ids, r.o.MaxIDs) {
		got, err := r.Test(ctx, key, chunk)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// Split is a test's answer as two lists: the ids new to the key and those
// it has seen, each in input order (empty, not nil, when there are none).
type Split struct {
	New  []string `json:"new"`
	Seen []string `json:"seen"`
}

// SplitIDs splits ids by got, Test's (or TestAll's) answer for them.
func SplitIDs(ids []string, got []bool) Split {
	s := Split{New: []string{}, Seen: []string{}}
	for i, id := range ids {
		if got[i] {
			s.Seen = append(s.Seen, id)
		} else {
			s.New = append(s.New, id)
		}
	}
	return s
}
