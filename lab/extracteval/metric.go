package extracteval

import (
	"unicode"
)

// tokens splits s into \w+ runs, Python's re.UNICODE \w: letters,
// digits, marks and underscore.
func tokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_'
		switch {
		case w && start < 0:
			start = i
		case !w && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// shingles counts s's 4-token shingles (evaluate.py's _ngrams: a text of
// fewer than 4 tokens is one shingle of them, none when it has none).
func shingles(s string) map[string]int {
	t := tokens(s)
	m := make(map[string]int, len(t))
	const n = 4
	for i := 0; i < max(1, len(t)-n+1); i++ {
		j := min(i+n, len(t))
		if j <= i {
			break
		}
		key := ""
		for k := i; k < j; k++ {
			key += t[k] + "\x00"
		}
		m[key]++
	}
	return m
}

// score is one page's normalized TP, FP, FN.
type score struct{ tp, fp, fn float64 }

func match(truth, pred string) score {
	ts, ps := shingles(truth), shingles(pred)
	var s score
	for k, tc := range ts {
		pc := ps[k]
		s.tp += float64(min(tc, pc))
		s.fn += float64(max(0, tc-pc))
	}
	for k, pc := range ps {
		s.fp += float64(max(0, pc-ts[k]))
	}
	if sum := s.tp + s.fp + s.fn; sum > 0 {
		s.tp, s.fp, s.fn = s.tp/sum, s.fp/sum, s.fn/sum
	}
	return s
}

func (s score) precision() float64 {
	switch {
	case s.fp == 0 && s.fn == 0:
		return 1
	case s.tp == 0 && s.fp == 0:
		return 0
	}
	return s.tp / (s.tp + s.fp)
}

func (s score) recall() float64 {
	switch {
	case s.fp == 0 && s.fn == 0:
		return 1
	case s.tp == 0 && s.fn == 0:
		return 0
	}
	return s.tp / (s.tp + s.fn)
}

// summary is evaluate.py's metrics_from_tp_fp_fns.
func summary(ss []score) (p, r, f1 float64) {
	np, nr := 0, 0
	for _, s := range ss {
		if s.tp+s.fp > 0 {
			p += s.precision()
			np++
		}
		if s.tp+s.fn > 0 {
			r += s.recall()
			nr++
		}
	}
	if np > 0 {
		p /= float64(np)
	}
	if nr > 0 {
		r /= float64(nr)
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}
