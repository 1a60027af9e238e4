package service

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"connectrpc.com/connect"

	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
	"github.com/hyperctl/hyperctl/internal/ground/httpguard"
)

// HandlerOptions configure the HTTP side of a Server.
type HandlerOptions struct {
	// Token, when set, is required on every request as
	// "Authorization: Bearer <token>" and compared in constant time.
	Token string
	// MaxBody caps a request body in bytes (default 1 MiB).
	MaxBody int64
	// BodyTimeout bounds the reading of a request's body, from the end of
	// its headers (default DefaultBodyTimeout): a client that stalls its
	// body is cut off, its connection closed.
	BodyTimeout time.Duration
	// HandlerTimeout is a request's deadline from the end of its headers
	// (default DefaultHandlerTimeout): a request still waiting for its
	// session when it passes is answered DEADLINE_EXCEEDED without being
	// applied, and a response not written by then (a client that does not
	// read it) closes the connection.
	HandlerTimeout time.Duration
}

// DefaultMaxBody is the default request body limit.
const DefaultMaxBody = 1 << 20

// The default timeouts of each phase of a request: its headers (RunConfig,
// http.Server.ReadHeaderTimeout), its body and its handling
// (HandlerOptions), and a kept-alive connection's wait for its next
// request (RunConfig, http.Server.IdleTimeout).
const (
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultBodyTimeout    = 10 * time.Second
	DefaultHandlerTimeout = 60 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
)

// Handler returns the HTTP handler that serves the API under
// /hyperctl.v1.ControllerService/.
func (s *Server) Handler(o HandlerOptions) http.Handler {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.HandlerTimeout <= 0 {
		o.HandlerTimeout = DefaultHandlerTimeout
	}
	opts := []connect.HandlerOption{
		connect.WithCodec(strictJSON{name: "json"}),
		connect.WithCodec(strictJSON{name: "json; charset=utf-8"}),
		connect.WithReadMaxBytes(int(o.MaxBody)),
		connect.WithRecover(func(ctx context.Context, spec connect.Spec, _ http.Header, p any) error {
			s.opts.Log.Error().Str("procedure", spec.Procedure).Str("panic", fmt.Sprint(p)).Str("stack", string(debug.Stack())).
				Msg("panic while serving a request; recovered")
			return connect.NewError(connect.CodeInternal, errors.New("internal error (the server recovered from a panic and logged it)"))
		}),
	}
	if o.Token != "" {
		want := sha256.Sum256([]byte(o.Token))
		opts = append(opts, connect.WithRequestGate(func(ctx context.Context, _ connect.Spec, _ connect.Peer, h http.Header) (context.Context, error) {
			got, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
			sum := sha256.Sum256([]byte(got))
			if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
				return nil, connect.NewError(connect.CodeUnauthenticated, errors.New("missing or wrong token: send \"Authorization: Bearer <token>\" with the token in the server's token file"))
			}
			return ctx, nil
		}))
	}
	path, h := hyperctlv1connect.NewControllerServiceHandler(&api{s: s}, opts...)
	mux := http.NewServeMux()
	mux.Handle(path, withDeadlines(http.MaxBytesHandler(h, o.MaxBody), o.HandlerTimeout))
	if s.awake == nil {
		return httpguard.Handler(mux, o.BodyTimeout)
	}
	return httpguard.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.awake.begin()
		defer s.awake.end()
		mux.ServeHTTP(w, r)
	}), o.BodyTimeout)
}

// withDeadlines sets a request's handler deadline when its headers have
// been read (the handler starts then): the connection's write deadline and
// the request context's deadline to now + handler. The body deadline is
// httpguard's, which wraps the whole handler (Handler). Where the
// connection does not support deadlines (a test's recorder) they are
// skipped.
func withDeadlines(h http.Handler, handler time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		_ = http.NewResponseController(w).SetWriteDeadline(now.Add(handler))
		ctx, cancel := context.WithDeadline(r.Context(), now.Add(handler))
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// api adapts the Server to the generated Connect interface.
type api struct{ s *Server }

var _ hyperctlv1connect.ControllerServiceHandler = (*api)(nil)

func (a *api) CreateSession(ctx context.Context, req *connect.Request[hyperctlv1.CreateSessionRequest]) (*connect.Response[hyperctlv1.CreateSessionResponse], error) {
	info, existed, err := a.s.Create(ctx, req.Msg)
	if err != nil {
		return nil, a.rpcErr(err)
	}
	return connect.NewResponse(&hyperctlv1.CreateSessionResponse{Session: info, Existed: existed}), nil
}

func (a *api) Suggest(ctx context.Context, req *connect.Request[hyperctlv1.SuggestRequest]) (*connect.Response[hyperctlv1.SuggestResponse], error) {
	resp, err := a.s.Suggest(ctx, req.Msg.GetSessionId(), req.Msg.Iteration)
	if err != nil {
		return nil, a.rpcErr(err)
	}
	return connect.NewResponse(resp), nil
}

func (a *api) Observe(ctx context.Context, req *connect.Request[hyperctlv1.ObserveRequest]) (*connect.Response[hyperctlv1.ObserveResponse], error) {
	resp, err := a.s.Observe(ctx, req.Msg)
	if err != nil {
		return nil, a.rpcErr(err)
	}
	return connect.NewResponse(resp), nil
}

func (a *api) GetSession(ctx context.Context, req *connect.Request[hyperctlv1.GetSessionRequest]) (*connect.Response[hyperctlv1.GetSessionResponse], error) {
	resp, err := a.s.Get(ctx, req.Msg)
	if err != nil {
		return nil, a.rpcErr(err)
	}
	return connect.NewResponse(resp), nil
}

func (a *api) ListSessions(ctx context.Context, req *connect.Request[hyperctlv1.ListSessionsRequest]) (*connect.Response[hyperctlv1.ListSessionsResponse], error) {
	return connect.NewResponse(&hyperctlv1.ListSessionsResponse{Sessions: a.s.List(ctx)}), nil
}

func (a *api) DeleteSession(ctx context.Context, req *connect.Request[hyperctlv1.DeleteSessionRequest]) (*connect.Response[hyperctlv1.DeleteSessionResponse], error) {
	if err := a.s.Delete(ctx, req.Msg.GetSessionId()); err != nil {
		return nil, a.rpcErr(err)
	}
	return connect.NewResponse(&hyperctlv1.DeleteSessionResponse{}), nil
}

func (a *api) Health(ctx context.Context, req *connect.Request[hyperctlv1.HealthRequest]) (*connect.Response[hyperctlv1.HealthResponse], error) {
	return connect.NewResponse(&hyperctlv1.HealthResponse{
		Status: "SERVING", Version: a.s.opts.Version, Sessions: int32(a.s.Count()), MaxSessions: int32(a.s.opts.MaxSessions),
		Quarantined: int32(a.s.Quarantined()),
	}), nil
}

// rpcErr maps the server's errors to Connect codes. Unexpected errors are
// logged and returned as internal errors with their message.
func (a *api) rpcErr(err error) error {
	var (
		fe  *FieldError
		nf  errNotFound
		cf  errConflict
		ex  errExists
		cp  errCapacity
		brk errBroken
		qt  *errQuarantined
	)
	switch {
	case errors.As(err, &fe):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.As(err, &nf):
		return connect.NewError(connect.CodeNotFound, err)
	case errors.As(err, &cf), errors.As(err, &qt):
		return connect.NewError(connect.CodeFailedPrecondition, err)
	case errors.As(err, &ex):
		return connect.NewError(connect.CodeAlreadyExists, err)
	case errors.As(err, &cp):
		return connect.NewError(connect.CodeResourceExhausted, err)
	case errors.As(err, &brk):
		return connect.NewError(connect.CodeUnavailable, err)
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, err)
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, err)
	}
	a.s.opts.Log.Error().Err(err).Msg("request failed")
	return connect.NewError(connect.CodeInternal, err)
}
