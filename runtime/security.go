package runtime

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/wire"
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

// hostAllowed applies the Host rule with the user's extra names and
// --public-url's (public_url.go).
func (c *Core) hostAllowed(r *http.Request) bool {
	if isLoopbackHost(r.Host) || c.viaPublicURL(r) {
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
// WebSocket. Core's own pages (the origin Core's pages have as the request
// reached it: ownOrigin) are always allowed; a request without Origin comes from a non-browser client,
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
	if own := c.ownOrigin(r); own != "" && strings.EqualFold(strings.TrimRight(origin, "/"), own) {
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

// hasCoreToken reports whether r carries this Core's token as its bearer
// token; the comparison takes the same time whatever the token sent.
func (c *Core) hasCoreToken(r *http.Request) bool {
	token, ok := wire.BearerToken(r)
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(c.token)) == 1
}

// PeerOf returns the peer check's verdict for r's connection. Core refuses
// disallowed peers before any route runs, so a handler never needs to call
// this to be safe; it is exported for code that wants to log or show who
// the peer is (a debug endpoint, an MCP bridge).
func (c *Core) PeerOf(r *http.Request) peercred.Peer { return c.peers.Of(r) }

// PeerCheckNote is what start-up logs about the peer check on this platform.
func (c *Core) PeerCheckNote() (ok bool, note string) { return c.peers.Note() }

// notePeerRefused logs a connection or request the peer check refused,
// through the refusal log like Core's other refusals.
func (c *Core) notePeerRefused(p peercred.Peer) {
	c.refusals.Note("peer", fmt.Sprint(p.UID), "refused a connection from another user", "uid", p.UID, "reason", p.Reason,
		"hint", "only Core's own user may connect; --allow-other-users lifts this for a deliberate shared setup")
}
