package dedupeval

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Hello, World! x2", []string{"hello", "world", "x2"}},
		{"软件包abc管理", []string{"软", "件", "包", "abc", "管", "理"}},
		{"", nil},
	} {
		if got := Words(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJaccard(t *testing.T) {
	a := Shingles("a b c d e f", 4) // abcd bcde cdef
	b := Shingles("a b c d e g", 4) // abcd bcde cdeg
	if j := Jaccard(a, b); j != 0.5 {
		t.Fatalf("J = %v, want 2/4", j)
	}
	if Jaccard(a, a) != 1 || Jaccard(nil, nil) != 1 || Jaccard(a, nil) != 0 {
		t.Fatal("J of identical / empty sets")
	}
}

// TestPairsAboveExact compares the inverted-index pair finder with all
// pairs computed one by one.
func TestPairsAboveExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	vocab := strings.Fields("a b c d e f g h i j k l m n o p")
	var sets [][]uint64
	for i := 0; i < 120; i++ {
		var w []string
		for j := 0; j < 30; j++ {
			w = append(w, vocab[r.IntN(4+i%12)])
		}
		sets = append(sets, Shingles(strings.Join(w, " "), 2))
	}
	for _, min := range []float64{0.3, 0.5, 0.9} {
		got := PairsAbove(sets, min)
		var want []Pair
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				if jac := Jaccard(sets[i], sets[j]); jac >= min {
					want = append(want, Pair{i, j, jac})
				}
			}
		}
		cmp := func(a, b Pair) int { return (a.I-b.I)*1000 + a.J - b.J }
		slices.SortFunc(got, cmp)
		if !reflect.DeepEqual(got, want) || len(want) == 0 {
			t.Fatalf("min %v: %d pairs, want %d", min, len(got), len(want))
		}
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	pages := []Doc{{URL: "u1", Title: "T1", Text: strings.Repeat("one two three four five\n", 40)}, {URL: "u2", Title: "T2", Text: strings.Repeat("六 七 八 九 十\n", 40)}}
	a := NewGenerator("en", 5).Generate(pages, 4)
	b := NewGenerator("en", 5).Generate(pages, 4)
	if !reflect.DeepEqual(a, b) || len(a) != 10 {
		t.Fatalf("two runs with one seed differ, or wrong count %d", len(a))
	}
	c := NewGenerator("en", 6).Generate(pages, 4)
	if reflect.DeepEqual(a, c) {
		t.Fatal("seed has no effect")
	}
	for _, d := range a {
		if d.Ops == "" && d.URL != "u1" && d.URL != "u2" {
			t.Errorf("variant without ops: %+v", d)
		}
	}
}

func TestEvaluate(t *testing.T) {
	sets := [][]uint64{{1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 5}, {9}}
	truth := PairsAbove(sets, 0.9) // (0,1) only
	s := Evaluate("x", []uint64{1, 1, 2, 1}, sets, truth)
	// merged pairs: (0,1) J=1, (0,3) J=0, (1,3) J=0
	if s.Merged != 3 || s.MergedGood != 1 || s.Truth != 1 || s.TruthMerged != 1 {
		t.Fatalf("%+v", s)
	}
	if fmt.Sprintf("%.3f %.3f", s.Precision, s.Recall) != "0.333 1.000" {
		t.Fatalf("precision %v recall %v", s.Precision, s.Recall)
	}
}

func TestLinearCluster(t *testing.T) {
	// 0b111 is 3 bits from 0; 0b1111 is 4 bits from 0 and 1 from 0b111,
	// but only cluster representatives (first members) are compared.
	l := LinearCluster([]uint64{0, 0b111, 0b1111, 0b1111 << 40}, 3)
	if l[0] != l[1] || l[2] == l[0] || l[3] == l[0] || l[3] == l[2] {
		t.Fatalf("labels %v", l)
	}
}
