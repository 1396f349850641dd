package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

// TestServeLines: every input line gets one answer, in order; a line over
// maxLine (CRLF not counted) and a blank line get error answers naming
// their line.
func TestServeLines(t *testing.T) {
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := api.NewService(context.Background(), d, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := `{"url": "https://a.example/", "content": "` + strings.Repeat("y", 500) + `"}` + "\r\n" +
		"\n" +
		`{"url": "https://b.example/", "title": "ok"}` + "\r\n"
	var out strings.Builder
	if err := svc.ServeLines(context.Background(), strings.NewReader(in), &out, 100); err != nil {
		t.Fatal(err)
	}
	var got []api.Response
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var r api.Response
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		got = append(got, r)
	}
	if len(got) != 3 || !strings.HasPrefix(got[0].Error, "line 1: longer than 100 bytes") ||
		got[1].Status != api.StatusError || !strings.HasPrefix(got[1].Error, "line 2") || got[2].Status != api.StatusSuccess {
		t.Fatalf("answers %+v", got)
	}
}
