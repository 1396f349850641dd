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
