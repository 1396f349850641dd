package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestIntList: bench --nodes and --sizes lists; a bad item is a usage
// error naming the flag and the item.
func TestIntList(t *testing.T) {
	for _, tc := range []struct {
		list  string
		least int
		want  []int
		bad   string
	}{
		{"1,2, 3", 1, []int{1, 2, 3}, ""},
		{"0,3", 0, []int{0, 3}, ""},
		{"0,3", 1, nil, `"0"`},
		{"1,,2", 0, nil, `""`},
		{"1,x", 0, nil, `"x"`},
	} {
		got, err := intList("--n", tc.list, tc.least, "a count")
		if tc.bad == "" {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("intList(%q, %d) = %v, %v, want %v", tc.list, tc.least, got, err, tc.want)
			}
			continue
		}
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--n: "+tc.bad+" is not a count") {
			t.Errorf("intList(%q, %d): %v, want a usage error naming --n and %s", tc.list, tc.least, err, tc.bad)
		}
	}
}
