package service

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
	"github.com/hyperctl/hyperctl/internal/ground/httpguard/httpguardtest"
)

// blockMethod is a test-only method whose Suggest signals entered and
// then waits for release (a slow handler).
type blockMethod struct{ panicMethod }

var blockGate struct {
	entered chan struct{}
	release chan struct{}
}

func (m *blockMethod) Suggest(dst controller.Config) error {
	blockGate.entered <- struct{}{}
	<-blockGate.release
	return m.panicMethod.Suggest(dst)
}

type blockSettings struct{}

func (blockSettings) Validate() error                 { return nil }
func (blockSettings) New() (controller.Method, error) { return &blockMethod{}, nil }

func init() {
	controller.MustRegister(controller.Entry{Name: "test-block", Summary: "test only", Defaults: func() controller.Settings { return &blockSettings{} }})
}

func unitParam() []*hyperctlv1.Param { return []*hyperctlv1.Param{{Name: "x", Low: 0, High: 1}} }

// serveHTTP serves s as Run does (httpServer) on a loopback port with the
// given timeouts and returns its address.
func serveHTTP(t *testing.T, s *Server, o HandlerOptions, header, idle time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httpServer(s.Handler(o), header, idle)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// closedBy waits, at most bound, for the server to close c, reading (and
// discarding) whatever it sends; it returns what was read.
func closedBy(t *testing.T, c net.Conn, bound time.Duration, what string) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(bound))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection is still open after %v (read %q)", what, bound, b)
	}
	return string(b)
}

// Every phase of a request has a timeout: a client that stalls its
// headers, its body, or sits idle on a kept-alive connection is cut off,
// while the others are served meanwhile; a request past its handler
// deadline is not answered, and one that waited past it for its session is
// refused without being applied.
func TestTimeouts(t *testing.T) {
	s := newTestServer(t, "", func(o *Options) { o.KeepAwake = -1 })
	defer s.Close()
	const (
		header = 150 * time.Millisecond
		body   = 150 * time.Millisecond
		idle   = 300 * time.Millisecond
		bound  = 30 * time.Second // failure bound only
	)
	addr := serveHTTP(t, s, HandlerOptions{BodyTimeout: body, HandlerTimeout: 5 * time.Second}, header, idle)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	const path = "/hyperctl.v1.ControllerService/"
	// Stalled clients, opened first: 16 with their headers cut short, 16
	// with complete headers and a body that stops.
	var stalledHeaders, stalledBodies []net.Conn
	for range 16 {
		c := dial()
		fmt.Fprintf(c, "POST %sHealth HTTP/1.1\r\nHost: x\r\nContent-Type: appl", path)
		stalledHeaders = append(stalledHeaders, c)
		c = dial()
		fmt.Fprintf(c, "POST %sCreateSession HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"sessionId\": \"st", path)
		stalledBodies = append(stalledBodies, c)
	}
	// Meanwhile, a well-behaved client is served.
	cl := hyperctlv1connect.NewControllerServiceClient(http.DefaultClient, "http://"+addr)
	ctx := context.Background()
	if _, err := cl.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "ok", Space: twoParams()})); err != nil {
		t.Fatal(err)
	}
	for it := range 5 {
		if _, err := cl.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "ok", Iteration: int32(it), Reward: float64(it)})); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range stalledHeaders {
		closedBy(t, c, bound, fmt.Sprintf("stalled headers %d", i))
	}
	for i, c := range stalledBodies {
		got := closedBy(t, c, bound, fmt.Sprintf("stalled body %d", i))
		if got != "" && !strings.Contains(got, "deadline_exceeded") {
			t.Errorf("stalled body %d: answered %q", i, got)
		}
	}
	if s.Count() != 1 {
		t.Fatalf("%d sessions: a stalled creation was applied", s.Count())
	}
	// Idle: a kept-alive connection with no next request is closed.
	c := dial()
	fmt.Fprintf(c, "POST %sHealth HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", path)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	closedBy(t, c, bound, "idle connection")

	// A handler slower than the body timeout is not cut off by it (the
	// read deadline is lifted once the body is read)...
	blockGate.entered, blockGate.release = make(chan struct{}), make(chan struct{})
	if _, err := cl.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "slow", Space: unitParam(), Method: "test-block"})); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cl.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "slow"}))
		done <- err
	}()
	<-blockGate.entered
	time.Sleep(3 * body) // past the body deadline, within the handler's
	blockGate.release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("a handler slower than the body timeout: %v", err)
	}

	// ...but one slower than the handler timeout is: no response, the
	// connection closed.
	addr2 := serveHTTP(t, s, HandlerOptions{HandlerTimeout: 100 * time.Millisecond}, header, idle)
	cl2 := hyperctlv1connect.NewControllerServiceClient(http.DefaultClient, "http://"+addr2)
	if _, _, err := s.Create(ctx, &hyperctlv1.CreateSessionRequest{SessionId: "slow2", Space: unitParam(), Method: "test-block"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := cl2.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "slow2"}))
		done <- err
	}()
	<-blockGate.entered
	time.Sleep(300 * time.Millisecond) // past the handler deadline
	blockGate.release <- struct{}{}
	if err := <-done; err == nil {
		t.Fatal("a response written after the handler deadline")
	}

	// A request whose deadline passed while it waited for its session is
	// refused, not applied.
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	_, err = s.Observe(expired, &hyperctlv1.ObserveRequest{SessionId: "ok", Iteration: 5, Reward: 1})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "not applied") {
		t.Fatalf("observe past its deadline: %v", err)
	}
	if st, _ := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "ok"}); st.GetSession().GetIteration() != 5 {
		t.Fatalf("observe past its deadline was applied: %v", st)
	}
	if _, err := cl.Observe(expired, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "ok", Iteration: 5, Reward: 1})); codeOf(err) != connect.CodeDeadlineExceeded {
		t.Fatalf("over RPC: %v", err)
	}
}

// Issue 40, point 6: a body that stalls is answered at --body-timeout
// (504, Connection: close) and its connection closed then, not after
// --idle-timeout (here an hour, so that the two cannot be confused); bytes
// the client sends after the answer are never parsed as a request.
func TestStalledBodyClosesItsConnection(t *testing.T) {
	s := newTestServer(t, "", func(o *Options) { o.KeepAwake = -1 })
	defer s.Close()
	const (
		body  = 200 * time.Millisecond
		long  = time.Hour        // header and idle timeouts: never reached
		bound = 30 * time.Second // failure bound only
		path  = "/hyperctl.v1.ControllerService/"
	)
	addr := serveHTTP(t, s, HandlerOptions{BodyTimeout: body, HandlerTimeout: long}, long, long)
	for _, c := range []struct{ name, head, part string }{
		{"content-length", "Content-Length: 100\r\n", `{"sessionId": "st`},
		{"chunked", "Transfer-Encoding: chunked\r\n", "10\r\n{\"sessionId\": \"s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %sCreateSession HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s\r\n%s", path, c.head, c.part)
			conn.SetReadDeadline(time.Now().Add(bound))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer to the stalled body: %v", err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusGatewayTimeout || !resp.Close || !strings.Contains(string(msg), "deadline_exceeded") {
				t.Fatalf("answered %s (Connection: close %v) %s; want 504 with Connection: close", resp.Status, resp.Close, msg)
			}
			// A complete request after the answer: the server must not
			// read it. The write may fail once the server has closed.
			fmt.Fprintf(conn, "POST %sCreateSession HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 61\r\n\r\n{\"sessionId\":\"after\",\"space\":[{\"name\":\"x\",\"low\":0,\"high\":1}]}", path)
			rest, err := io.ReadAll(br)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the connection is still open %v after the 504 (body timeout %v, idle timeout %v)", bound, body, long)
			}
			if len(rest) != 0 {
				t.Fatalf("bytes after the 504 were answered: %q", rest)
			}
			if s.Count() != 0 {
				t.Fatalf("%d sessions: the bytes after the 504 were parsed as a request", s.Count())
			}
		})
	}
}

// The body timeout holds on every path and every response of serve, the
// API's and the pages' alike: a stalled body on a page, a 404, the API's
// prefix without its slash, an API call without the token (401) and one
// with it is answered with Connection: close, and the connection is
// closed by --body-timeout (the header and idle timeouts are an hour), no
// byte after the reply parsed as a request.
func TestStalledBodyOnEveryPath(t *testing.T) {
	s := newTestServer(t, "", func(o *Options) { o.KeepAwake = -1 })
	defer s.Close()
	const long = time.Hour
	o := HandlerOptions{Token: "tok", BodyTimeout: 200 * time.Millisecond, HandlerTimeout: long}
	pages := http.NewServeMux()
	pages.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the dashboard") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httpServer(serveHandler(s, o, pages), long, long)
	go hs.Serve(ln)
	defer hs.Close()
	api := "/" + hyperctlv1connect.ControllerServiceName
	for _, c := range []struct {
		name, path, header string
		want               int
	}{
		{"page", "/", "", http.StatusOK},
		{"404", "/nope", "", http.StatusNotFound},
		{"API prefix without its slash", api, "", http.StatusTemporaryRedirect},
		{"401", api + "/CreateSession", "Content-Type: application/json\r\n", http.StatusUnauthorized},
		{"API call", api + "/CreateSession", "Content-Type: application/json\r\nAuthorization: Bearer tok\r\n", http.StatusGatewayTimeout},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := httpguardtest.StalledBody(t, ln.Addr().String(), "POST", c.path, c.header); got != c.want {
				t.Errorf("status %d, want %d", got, c.want)
			}
		})
	}
	if s.Count() != 0 {
		t.Fatalf("%d sessions: bytes of a stalled body were parsed as a request", s.Count())
	}
}
