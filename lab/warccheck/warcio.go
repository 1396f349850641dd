package warccheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Warcio finds the warcio command of Node's warcio package (2.4.x): the
// one .ci/run installs under .ci/node_modules at the repository root, or
// one on PATH. Outside CI a missing warcio skips tb; in CI
// (BLOOMCRAWL_CI=1) it fails tb.
func Warcio(tb testing.TB) string {
	tb.Helper()
	return nodeTool(tb, "warcio", "warcio@2.4")
}

// JSWACZ finds the js-wacz command of the npm package
// @harvard-lil/js-wacz (0.1.x), as Warcio finds warcio.
func JSWACZ(tb testing.TB) string {
	tb.Helper()
	return nodeTool(tb, "js-wacz", "@harvard-lil/js-wacz@0.1")
}

func nodeTool(tb testing.TB, name, pkg string) string {
	tb.Helper()
	if dir, err := os.Getwd(); err == nil {
		for range 10 {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				p := filepath.Join(dir, ".ci", "node_modules", ".bin", name)
				if _, err := os.Stat(p); err == nil {
					return p
				}
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("BLOOMCRAWL_CI") == "1" {
		tb.Fatalf("%s not found: .ci/run installs it (npm install --prefix .ci %s)", name, pkg)
	}
	tb.Skipf("%s (npm package %s) not installed: run .ci/run or npm install --prefix .ci %s", name, pkg, pkg)
	return ""
}

// CDXLine is one line of `warcio cdx-index --format json`.
type CDXLine struct {
	URL      string `json:"url"`
	Mime     string `json:"mime"`
	Status   any    `json:"status"` // a number, or a string in cdxj output
	Digest   string `json:"digest"`
	Offset   int64  `json:"offset"`
	Filename string `json:"filename"`
}

// CDXIndex runs `warcio cdx-index --format json [--all] files...` and
// parses its lines.
func CDXIndex(warcio string, all bool, files []string) ([]CDXLine, error) {
	args := []string{"cdx-index", "--format", "json"}
	if all {
		args = append(args, "--all")
	}
	cmd := exec.Command(warcio, append(args, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", warcio, strings.Join(args, " "), err, stderr.String())
	}
	var lines []CDXLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l CDXLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("warcio line %q: %w", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines, sc.Err()
}

// CheckWithWarcio indexes files with warcio and compares its view with
// recs (read with gowarc): warcio finds a record at every offset where
// gowarc found one and no other; its default index lists exactly the
// responses, revisits and resources, each with its URL, payload digest and
// (but resources) status; revisits with mime warc/revisit.
func CheckWithWarcio(warcio string, files []string, recs []*Record) []error {
	var errs []error
	all, err := CDXIndex(warcio, true, files)
	if err != nil {
		return []error{err}
	}
	at := map[string]*Record{}
	for _, r := range recs {
		at[fmt.Sprintf("%s@%d", r.File, r.Offset)] = r
	}
	if len(all) != len(recs) {
		errs = append(errs, fmt.Errorf("warcio --all indexes %d records, gowarc read %d", len(all), len(recs)))
	}
	for _, l := range all {
		if at[fmt.Sprintf("%s@%d", l.Filename, l.Offset)] == nil {
			errs = append(errs, fmt.Errorf("warcio indexes a record at %s@%d where gowarc found none", l.Filename, l.Offset))
		}
	}
	def, err := CDXIndex(warcio, false, files)
	if err != nil {
		return append(errs, err)
	}
	seen := map[*Record]bool{}
	for _, l := range def {
		r := at[fmt.Sprintf("%s@%d", l.Filename, l.Offset)]
		if r == nil || (r.Type != "response" && r.Type != "revisit" && r.Type != "resource") {
			errs = append(errs, fmt.Errorf("warcio lists %s (%s@%d), not a response, revisit or resource", l.URL, l.Filename, l.Offset))
			continue
		}
		seen[r] = true
		want := strings.TrimPrefix(r.Header.Get("WARC-Payload-Digest"), "sha1:")
		if l.URL != r.URI || l.Digest != want || (r.Type != "resource" && fmt.Sprint(l.Status) != fmt.Sprint(r.Status)) {
			errs = append(errs, fmt.Errorf("warcio: %s status %v digest %s; the record: %s status %d digest %s", l.URL, l.Status, l.Digest, r.URI, r.Status, want))
		}
		if (r.Type == "revisit") != (l.Mime == "warc/revisit") {
			errs = append(errs, fmt.Errorf("warcio: %s %s has mime %q", r.Type, r.URI, l.Mime))
		}
	}
	for _, r := range recs {
		if (r.Type == "response" || r.Type == "revisit" || r.Type == "resource") && !seen[r] {
			errs = append(errs, fmt.Errorf("warcio does not list the %s of %s", r.Type, r.URI))
		}
	}
	if len(def) == 0 {
		errs = append(errs, errors.New("warcio lists nothing"))
	}
	return errs
}

// CDXJ runs `warcio cdx-index --format cdxj files...` and returns its
// lines sorted byte-wise (warcio writes them in file order; the CDXJ
// files pywb and WACZ read are sorted).
func CDXJ(warcio string, files []string) ([]string, error) {
	args := append([]string{"cdx-index", "--format", "cdxj"}, files...)
	cmd := exec.Command(warcio, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s cdx-index --format cdxj: %w: %s", warcio, err, stderr.String())
	}
	return SortedLines(out), nil
}

// SortedLines splits b into its non-empty lines, sorted byte-wise.
func SortedLines(b []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return lines
}

// CompareCDXJ compares our CDXJ lines with warcio's, line for line, and
// returns a description of each difference (at most 20).
func CompareCDXJ(ours, warcio []string) []error {
	var errs []error
	if len(ours) != len(warcio) {
		errs = append(errs, fmt.Errorf("%d CDXJ lines, warcio has %d", len(ours), len(warcio)))
	}
	for i := 0; i < max(len(ours), len(warcio)) && len(errs) < 20; i++ {
		var a, b string
		if i < len(ours) {
			a = ours[i]
		}
		if i < len(warcio) {
			b = warcio[i]
		}
		if a != b {
			errs = append(errs, fmt.Errorf("CDXJ line %d:\n ours   %s\n warcio %s", i+1, a, b))
		}
	}
	return errs
}
