package crawler

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestOpenComponentsFailureCloses: when a component cannot be opened (the
// WARC directory is a file), OpenComponents returns the error and closes
// what it had opened: the store can be opened again at once.
func TestOpenComponentsFailureCloses(t *testing.T) {
	cfg := configs.Default()
	cfg.Seeds = []string{"http://127.0.0.1:1/"}
	cfg.Store.Dir = t.TempDir()
	cfg.Store.WARCDir = filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(cfg.Store.WARCDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if c, err := OpenComponents(ctx, cfg, OpenOptions{}); err == nil {
		c.Close(ctx, nil)
		t.Fatal("OpenComponents opened a WARC directory that is a file")
	}
	db, err := storage.Open(cfg.Store.Dir, nil)
	if err != nil {
		t.Fatalf("the store stayed open after OpenComponents failed: %v", err)
	}
	db.Close()

	cfg.Store.WARCDir = t.TempDir()
	c, err := OpenComponents(ctx, cfg, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Store == nil || c.Dedup == nil || c.Archive == nil || c.Node != nil || c.Options.Archive == nil || c.Options.URLFilter == nil {
		t.Errorf("components %+v", c)
	}
	if err := c.Close(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if db, err = storage.Open(cfg.Store.Dir, nil); err != nil {
		t.Fatalf("the store stayed open after Close: %v", err)
	}
	db.Close()
}
