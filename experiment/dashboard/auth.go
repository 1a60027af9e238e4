package dashboard

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// tokenParam is the query parameter that carries the token once, in the
// link the server prints; the page then keeps it in a cookie.
const tokenParam = "token"

// RequireToken wraps h so that every request must carry token, in one of
// three ways: the header "Authorization: Bearer <token>" (scripts, as for
// `hyperctl serve`'s API); the cookie the server set for this port; or
// ?token=<token> in the URL, which sets that cookie (HttpOnly, SameSite
// strict) and redirects to the same URL without it, so a browser opened on
// the printed link keeps working without the token in its address bar.
// Tokens are compared in constant time.
//
// With an empty token (a server on loopback, as `hyperctl serve` allows
// without --token-file) every request is served whose Host is a loopback
// address or "localhost": a web page elsewhere that renames itself to
// 127.0.0.1 in DNS (DNS rebinding) is refused.
func RequireToken(h http.Handler, token string) http.Handler {
	if token == "" {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !loopbackHost(r.Host) {
				http.Error(w, fmt.Sprintf("Host %q: this dashboard has no token and serves only loopback hosts (127.0.0.1, [::1], localhost); to serve others, start it with a token file", r.Host), http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	want := sha256.Sum256([]byte(token))
	same := func(got string) bool {
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := cookieName(r.Host)
		if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && same(got) {
			h.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(name); err == nil && same(c.Value) {
			h.ServeHTTP(w, r)
			return
		}
		q := r.URL.Query()
		if got := q.Get(tokenParam); got != "" && same(got) {
			http.SetCookie(w, &http.Cookie{Name: name, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del(tokenParam)
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		http.Error(w, "missing or wrong token: open the page once as http://"+r.Host+"/?"+tokenParam+"=<token>, with the token in the server's token file, or send \"Authorization: Bearer <token>\"", http.StatusUnauthorized)
	})
}

// cookieName is the token cookie's name for the server at host: cookies are
// shared by every port of a host, so each port has its own.
func cookieName(host string) string {
	_, port, err := net.SplitHostPort(host)
	if err != nil || port == "" {
		port = "80"
	}
	return "hyperctl_token_" + port
}

// loopbackHost reports whether a request's Host names a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
