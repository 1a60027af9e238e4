package service

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// Listen listens on TCP at listen (RunConfig.Listen); when another
// process holds the port, the error (net's, which names the address) says
// to give another address (a words.Worded error).
func Listen(listen string) (net.Listener, error) {
	ln, err := net.Listen("tcp", listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, &words.AdviceError{Err: err, After: "; another process uses this port: give {listen} another address (port 0 picks a free one, e.g. 127.0.0.1:0)"}
	}
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", listen, err)
	}
	return ln, nil
}

// CheckBound refuses a listener bound to a non-loopback address when no
// token protects it (a host name CheckListen resolved to loopback may bind
// elsewhere). listen is RunConfig.Listen, for the message.
func CheckBound(ln net.Listener, listen string, haveToken bool) error {
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !haveToken && !ta.IP.IsLoopback() {
		return &ConfigError{fmt.Sprintf("{listen} %q bound %s, which is not a loopback address; give {token-file}", listen, ta)}
	}
	return nil
}

// WarnTokenMode logs a warning when the token file at path is readable by
// other users.
func WarnTokenMode(path string, log zerolog.Logger) {
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		log.Warn().Str("file", path).Str("mode", st.Mode().Perm().String()).Msg("the token file is readable by other users; chmod 600 it")
	}
}

// withPages serves the API's paths with api and every other path with
// pages (RunConfig.Pages).
func withPages(api, pages http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/"+hyperctlv1connect.ControllerServiceName+"/", api)
	mux.Handle("/", pages)
	return mux
}
