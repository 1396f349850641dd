package extracteval

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

func TestMain_Articles(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-worst", "3"}
	if a := os.Getenv("EXTRACTEVAL_ARGS"); a != "" {
		args = strings.Fields(a)
	}
	if err := Main(context.Background(), args, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if !strings.Contains(out.String(), "set aeb: 181 pages") {
		t.Errorf("output lacks the aeb set:\n%s", out.String())
	}
}
