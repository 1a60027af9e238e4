// Package httpguardtest holds the check, shared by the tests of every
// HTTP server of hyperctl, that a request whose body stalls is answered
// with "Connection: close" and its connection closed by the body timeout,
// and that no byte sent after the reply is parsed as a request.
package httpguardtest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Bound is how long StalledBody waits for a reply and for the close: a
// failure bound only, far above any body timeout a test sets.
const Bound = 30 * time.Second

// StalledBody sends to the server at addr (loopback) a request with the
// method, path and extra header lines (each ending "\r\n") given, whose
// Content-Length promises 100 bytes of which it sends 12, and stalls. It
// fails t unless a reply comes with Connection: close and the server then
// closes the connection without answering the complete request the client
// writes after the reply. It returns the reply's status code.
func StalledBody(t testing.TB, addr, method, path, header string) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Length: 100\r\n\r\n{\"stalled\": ", method, path, header)
	if err := conn.SetReadDeadline(time.Now().Add(Bound)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s %s: no reply to the stalled body within %v: %v", method, path, Bound, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !resp.Close {
		t.Fatalf("%s %s: replied %s without Connection: close while its body was unread", method, path, resp.Status)
	}
	// A complete request after the reply, smuggled in the body's place:
	// it must never be answered. The write may fail once the server has
	// closed.
	fmt.Fprintf(conn, "GET /after HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	rest, err := io.ReadAll(br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s %s: the connection is still open %v after the reply", method, path, Bound)
	}
	if len(rest) != 0 {
		t.Fatalf("%s %s: bytes after the reply were answered: %q", method, path, rest)
	}
	return resp.StatusCode
}
