package httpguard

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/internal/ground/httpguard/httpguardtest"
)

// Every path of a guarded server answers a stalled body with Connection:
// close and closes the connection by the body timeout: a handler that
// ignores the body, the mux's 404 and its redirect of a prefix without
// its slash, a refusal before the body is read, and a handler that reads
// the body (it fails at the deadline).
func TestStalledBodyOnEveryPath(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
	mux.Handle("/api/", http.StripPrefix("/api", http.NotFoundHandler()))
	mux.HandleFunc("/auth", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no token", http.StatusUnauthorized) })
	mux.HandleFunc("/read", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusGatewayTimeout)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: Handler(mux, 200*time.Millisecond), ReadHeaderTimeout: time.Hour, IdleTimeout: time.Hour}
	go hs.Serve(Listener(ln, 4))
	defer hs.Close()
	for _, c := range []struct {
		path string
		want int
	}{
		{"/page", http.StatusOK}, {"/nope", http.StatusNotFound}, {"/api", http.StatusTemporaryRedirect},
		{"/auth", http.StatusUnauthorized}, {"/read", http.StatusGatewayTimeout},
	} {
		if got := httpguardtest.StalledBody(t, ln.Addr().String(), "POST", c.path, ""); got != c.want {
			t.Errorf("%s: status %d, want %d", c.path, got, c.want)
		}
	}
}

// Listener holds at most n connections open: the next is accepted only
// when one closes.
func TestListenerCap(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	ln := Listener(inner, 2).(*limited)
	var clients []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	var held []net.Conn
	for range 2 {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	if len(ln.sem) != cap(ln.sem) {
		t.Fatalf("%d of %d slots held after 2 accepts", len(ln.sem), cap(ln.sem))
	}
	third := make(chan net.Conn)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		third <- c
	}()
	held[0].Close()
	held[0].Close() // a second close frees nothing more
	c := <-third
	defer c.Close()
	if len(ln.sem) != 2 {
		t.Fatalf("%d slots held, want 2", len(ln.sem))
	}
}
