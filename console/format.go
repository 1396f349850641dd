package console

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// views are the console's pages; each is templates/NAME.html with
// templates/layout.html.
var views = []string{"status", "hosts", "pages", "doc", "steer", "cluster"}

func parseTemplates() map[string]*template.Template {
	funcs := template.FuncMap{
		"num":   num,
		"bytes": bytesText,
		"rate":  func(f float64) string { return fixed(f, 1) },
		"fixed": fixed,
		"pct":   pct,
		"dur":   durText,
		"secs":  func(s float64) string { return durText(time.Duration(s * float64(time.Second))) },
		"clock": func(t time.Time) string {
			if t.IsZero() {
				return "–"
			}
			return t.Local().Format("15:04:05")
		},
		"date": func(t time.Time) string {
			if t.IsZero() {
				return "–"
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"div1000": func(ms int64) float64 { return float64(ms) / 1000 },
		"deref": func(p *uint64) uint64 {
			if p == nil {
				return 0
			}
			return *p
		},
		"query": func(kv ...string) string {
			q := url.Values{}
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i+1] != "" {
					q.Set(kv[i], kv[i+1])
				}
			}
			return q.Encode()
		},
		"flip": func(dir string) string {
			if dir == "desc" {
				return "asc"
			}
			return "desc"
		},
		"measuredFP": func(fp *uint64, keys uint64) string {
			if fp == nil {
				return "not counted (turn on dedup.verify or --audit)"
			}
			if *fp+keys == 0 {
				return "0"
			}
			return num(*fp) + " (" + pct(float64(*fp)/float64(*fp+keys)) + " of new URLs)"
		},
	}
	out := map[string]*template.Template{}
	for _, v := range views {
		out[v] = template.Must(template.New(v).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+v+".html"))
	}
	return out
}

// num writes an integer with thousands separators: 1234567 → "1,234,567".
func num(v any) string {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case uint64:
		if x > math.MaxInt64 {
			return strconv.FormatUint(x, 10)
		}
		n = int64(x)
	case float64:
		n = int64(math.Round(x))
	default:
		return fmt.Sprint(v)
	}
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fixed writes f with d decimals and thousands separators.
func fixed(f float64, d int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', d, 64)
	whole, frac, _ := strings.Cut(s, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	out := num(w)
	if f < 0 {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// pct writes a fraction as a percentage with 2 significant digits.
func pct(f float64) string {
	switch {
	case f == 0:
		return "0%"
	case f >= 0.01:
		return fixed(f*100, 1) + "%"
	}
	return strconv.FormatFloat(f*100, 'g', 2, 64) + "%"
}

// bytesText writes a size in binary units: 1536 → "1.5 KiB".
func bytesText(v any) string {
	var n float64
	switch x := v.(type) {
	case int:
		n = float64(x)
	case int64:
		n = float64(x)
	case uint64:
		n = float64(x)
	case float64:
		n = x
	default:
		return fmt.Sprint(v)
	}
	if n < 0 {
		return "–"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return num(int64(n)) + " B"
	}
	return fixed(n, 1) + " " + units[i]
}

// durText writes a duration at a precision a reader takes in at a glance.
func durText(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return fixed(d.Seconds(), 1) + " s"
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %02dh", int(d.Hours())/24, int(d.Hours())%24)
}
