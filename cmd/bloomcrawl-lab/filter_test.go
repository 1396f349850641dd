package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

func TestBenchFilterRows(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"--n", "3000", "--json", "--reps", "1", "--variants", "default,default-single,blocked,peer-bits-and-blooms"}
	if err := runFilter(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("bench filter: %v\n%s", err, errOut.String())
	}
	rows := map[string]filterbench.FilterRow{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r filterbench.FilterRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		rows[r.Variant] = r
	}
	if len(rows) != 4 {
		t.Fatalf("rows %v, want 4", rows)
	}
	def, single := rows["default"], rows["default-single"]
	// default is the batch path, as frontier.Reserve uses the filter; the
	// single-key path stays visible beside it. Same filter, same keys: the
	// same answers.
	if !strings.Contains(def.Impl, "TestBatch") || !strings.Contains(single.Impl, "one key a call") {
		t.Errorf("impl: default %q, default-single %q", def.Impl, single.Impl)
	}
	if def.FalsePositives != single.FalsePositives || def.BitsPerURL != single.BitsPerURL {
		t.Errorf("default %+v and default-single %+v disagree", def, single)
	}
	for v, r := range rows {
		if r.N != 3000 || r.TestNs <= 0 || r.MeasuredFP > 0.05 || r.BitsPerURL <= 0 {
			t.Errorf("%s: %+v", v, r)
		}
	}
}
