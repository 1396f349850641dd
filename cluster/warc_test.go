package cluster

import (
	"context"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestWARCDigests: the first claim of a digest stores its reference and
// returns nil; later claims return that reference; a drop removes it only
// while it still holds the dropper's reference.
func TestWARCDigests(t *testing.T) {
	a := open(t, "redis://"+redistest.Start(t)+"/0", "a").WARCDigests()
	ctx := context.Background()
	if got, err := a.ClaimDigest(ctx, "sha1:X", []byte("ref-a")); err != nil || got != nil {
		t.Fatalf("first claim: %q, %v; want nil", got, err)
	}
	if got, err := a.ClaimDigest(ctx, "sha1:X", []byte("ref-b")); err != nil || string(got) != "ref-a" {
		t.Fatalf("second claim: %q, %v; want ref-a", got, err)
	}
	if err := a.DropDigest(ctx, "sha1:X", []byte("ref-b")); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.ClaimDigest(ctx, "sha1:X", []byte("ref-c")); string(got) != "ref-a" {
		t.Errorf("a drop by another reference removed the claim: %q", got)
	}
	if err := a.DropDigest(ctx, "sha1:X", []byte("ref-a")); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.ClaimDigest(ctx, "sha1:X", []byte("ref-c")); got != nil {
		t.Errorf("claim after the owner's drop: %q, want nil", got)
	}
}
