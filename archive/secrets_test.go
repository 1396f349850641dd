package archive_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
)

// TestSecrets: Authorization, Proxy-Authorization and Cookie values are
// written as "[redacted]" unless Options.Secrets, and the warcinfo record
// says which.
func TestSecrets(t *testing.T) {
	req := "GET /a HTTP/1.1\r\nHost: a.test\r\nauthorization: Basic dXNlcjpwdw==\r\nCookie: session=42\r\nProxy-Authorization: Basic eA==\r\nUser-Agent: x\r\n\r\n"
	for _, c := range []struct {
		secrets   bool
		wantReq   string
		wantField string
	}{
		{false, "GET /a HTTP/1.1\r\nHost: a.test\r\nauthorization: [redacted]\r\nCookie: [redacted]\r\nProxy-Authorization: [redacted]\r\nUser-Agent: x\r\n\r\n", "redacted"},
		{true, req, "written"},
	} {
		db := mustOpen(t, t.TempDir())
		w, err := archive.Open(archive.Options{Dir: t.TempDir(), Index: db, Secrets: c.secrets})
		if err != nil {
			t.Fatal(err)
		}
		ex := exchange("http://a.test/a", "<p>a</p>", time.Now().UTC())
		ex.Request = []byte(req)
		if err := w.Write(context.Background(), archive.Fetch{Exchanges: []*archive.Exchange{ex}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		recs := readAll(t, w.Files())
		if got := string(recs[1].Block); recs[1].Type != "request" || got != c.wantReq {
			t.Errorf("secrets %v: request block %q, want %q", c.secrets, got, c.wantReq)
		}
		if f := recs[0].Fields["http-request-secrets"]; !strings.HasPrefix(f, c.wantField) {
			t.Errorf("secrets %v: warcinfo http-request-secrets %q, want %s", c.secrets, f, c.wantField)
		}
	}
}
