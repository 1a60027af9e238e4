package dashboard

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/internal/ground/httpguard/httpguardtest"
)

// The body timeout holds on every path and every response of the
// dashboard: a stalled body on the page, the overview, a 404, the API
// prefix without its slash and a request without the token (401) is
// answered with Connection: close and the connection closed by the body
// timeout, no byte after the reply parsed as a request.
func TestStalledBodyOnEveryPath(t *testing.T) {
	src, err := NewRuns(t.TempDir(), RunsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, token string
		want              int
	}{
		{"page", "/", "", http.StatusOK},
		{"overview", "/api/overview", "", http.StatusOK},
		{"404", "/nope", "", http.StatusNotFound},
		{"API prefix without its slash", "/api", "", http.StatusNotFound},
		{"401", "/api/overview", "tok", http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := Handler(src, Options{})
			if c.token != "" {
				h = RequireToken(h, c.token)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- serve(ctx, ln, h, 200*time.Millisecond) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			if got := httpguardtest.StalledBody(t, ln.Addr().String(), "GET", c.path, ""); got != c.want {
				t.Errorf("status %d, want %d", got, c.want)
			}
		})
	}
}
