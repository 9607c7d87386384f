package runtime

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// isLoopbackHost reports whether a Host header names this machine:
// localhost (and *.localhost), 127.0.0.0/8 or ::1. Checking it on every
// request defeats DNS rebinding: a hostile name that resolves to 127.0.0.1
// still arrives with its own name in Host.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostAllowed applies the Host rule with the user's extra names.
func (c *Core) hostAllowed(r *http.Request) bool {
	if isLoopbackHost(r.Host) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		host = h
	}
	for _, allowed := range c.opts.AllowHosts {
		if strings.EqualFold(allowed, host) {
			return true
		}
	}
	return false
}

// originAllowed decides whether a page at origin may open the SDK
// WebSocket. Core's own pages (same scheme and host as the request) are
// always allowed; a request without Origin comes from a non-browser client,
// which no web page can forge, and is allowed; anything else must match
// --allow-origin.
func (c *Core) originAllowed(r *http.Request) (origin string, ok bool) {
	origin = r.Header.Get("Origin")
	if origin == "" {
		return "", true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return origin, false
	}
	if u.Scheme == "http" && strings.EqualFold(u.Host, r.Host) && isLoopbackHost(u.Host) {
		return origin, true
	}
	for _, pattern := range c.opts.AllowOrigins {
		if matchOrigin(pattern, origin) {
			return origin, true
		}
	}
	return origin, false
}

// matchOrigin matches exact origins and shell-style patterns
// ("http://localhost:*", "https://*.example.com"), case-insensitively.
func matchOrigin(pattern, origin string) bool {
	pattern, origin = strings.ToLower(strings.TrimRight(pattern, "/")), strings.ToLower(origin)
	if pattern == "*" {
		return true
	}
	if pattern == origin {
		return true
	}
	ok, err := path.Match(pattern, origin)
	return err == nil && ok
}

// bearerToken is the credential of an "Authorization: Bearer <token>"
// header. The scheme is matched case-insensitively (RFC 9110, 11.1); a
// header without it (the bare token, another scheme) carries no bearer
// token at all.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}

// hasCoreToken reports whether r carries this Core's token as its bearer
// token; the comparison takes the same time whatever the token sent.
func (c *Core) hasCoreToken(r *http.Request) bool {
	token, ok := bearerToken(r)
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(c.token)) == 1
}
