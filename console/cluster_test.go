package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestClusterView reads a cluster's state from a real redis-server: the
// node that joined and the partitions it holds.
func TestClusterView(t *testing.T) {
	addr := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := "redis://" + addr + "/0"
	node, err := cluster.Open(ctx, cluster.Options{URL: url, Node: "node-a", Partitions: 4, LeaseTTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := New(ctx, Options{Store: db, ClusterURL: url})
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		w := httptest.NewRecorder()
		c.ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1/console/cluster", nil))
		body = w.Body.String()
		if w.Code == http.StatusOK && strings.Contains(body, "node-a") && strings.Contains(body, `id="partitions"`) && len(node.Held()) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster view: %d %.2000s", w.Code, body)
		}
	}
	if !strings.Contains(body, "live") {
		t.Errorf("cluster view does not show node-a live: %.2000s", body)
	}
	if n := strings.Count(body, "<td>node-a</td>"); n < 2 {
		t.Errorf("node-a shown %d times (want its row and as a partition owner): %.2000s", n, body)
	}
}
