// Package httpguard bounds what a client can hold of an HTTP server's
// connections, on every path and every response: the body timeout applies
// to every request (a handler that never reads the body included), a reply
// sent before the request's body was read to its end closes the
// connection, so no byte of that body is ever parsed as a request, and
// the number of connections open at once is capped. `hyperctl serve` and
// `hyperctl dashboard` serve through it.
package httpguard

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Handler wraps h: a request's body must arrive within body of the end of
// its headers (the connection's read deadline, lifted once the body has
// been read to its end), and a reply begun while the body has not been
// read to its end (a 404, a 401, a page that ignores it, a body that
// stalled or failed) carries "Connection: close", so the connection is
// closed after it: net/http then sends the reply at once, and waits for
// the rest of the body at most until the read deadline. On HTTP/2 the
// header is not sent (a stream's body ends on its own). Where the
// connection does not support deadlines (a test's recorder) none is set.
func Handler(h http.Handler, body time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		g := &guarded{ResponseWriter: w, http1: r.ProtoMajor == 1}
		if r.Body == nil || r.Body == http.NoBody {
			g.done = true
		} else {
			if rc.SetReadDeadline(time.Now().Add(body)) != nil {
				h.ServeHTTP(w, r)
				return
			}
			r.Body = &bodyReader{ReadCloser: r.Body, g: g, rc: rc}
		}
		h.ServeHTTP(g, r)
	})
}

// guarded is a response whose request body may not have been read to its
// end.
type guarded struct {
	http.ResponseWriter
	http1       bool
	mu          sync.Mutex
	done        bool // the body was read to its end
	wroteHeader bool
}

func (g *guarded) WriteHeader(code int) {
	g.mu.Lock()
	if !g.wroteHeader {
		g.wroteHeader = true
		if !g.done && g.http1 {
			g.ResponseWriter.Header().Set("Connection", "close")
		}
	}
	g.mu.Unlock()
	g.ResponseWriter.WriteHeader(code)
}

func (g *guarded) Write(p []byte) (int, error) {
	g.mu.Lock()
	wrote := g.wroteHeader
	g.mu.Unlock()
	if !wrote {
		g.WriteHeader(http.StatusOK)
	}
	return g.ResponseWriter.Write(p)
}

// Unwrap gives http.ResponseController the response underneath (flush,
// deadlines).
func (g *guarded) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// Flush flushes the response underneath, for handlers that assert
// http.Flusher.
func (g *guarded) Flush() {
	g.mu.Lock()
	wrote := g.wroteHeader
	g.mu.Unlock()
	if !wrote {
		g.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(g.ResponseWriter).Flush()
}

// bodyReader marks the body read to its end (and lifts the read deadline)
// at EOF, and asks for the connection to be closed after the reply when
// reading it failed (stalled past the deadline, or the connection broke).
type bodyReader struct {
	io.ReadCloser
	g  *guarded
	rc *http.ResponseController
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.g.mu.Lock()
		first := !b.g.done
		b.g.done = true
		b.g.mu.Unlock()
		if first {
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	} else if err != nil {
		b.g.mu.Lock()
		if b.g.http1 && !b.g.wroteHeader {
			b.g.ResponseWriter.Header().Set("Connection", "close")
		}
		b.g.mu.Unlock()
	}
	return n, err
}

// Listener wraps ln so that at most n connections accepted from it are
// open at once: Accept waits for one to close before it accepts another,
// leaving the next in the kernel's backlog, so no number of clients holds
// more than n of the process's file descriptors.
func Listener(ln net.Listener, n int) net.Listener {
	return &limited{Listener: ln, sem: make(chan struct{}, n)}
}

type limited struct {
	net.Listener
	sem chan struct{}
}

func (l *limited) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
