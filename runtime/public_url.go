package runtime

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Core behind a port forward. The browser may reach Core by another
// address than the one it listens on:
//   - `ssh -L 7077:127.0.0.1:7077 devbox`, or any loopback forward: the
//     browser's Host is a loopback name (perhaps another port), so Core's
//     own pages are at http://<that Host>, and links are built from it;
//   - an editor's or Codespaces' HTTPS forward with a name of its own
//     (`--public-url https://name-7077.app.github.dev`): that one name is
//     accepted as Core's own, its origin is Core's pages' origin, and the
//     links Core gives a browser that came that way use it.
// Anything else keeps the loopback rule (the Host check, DNS rebinding).

// ParsePublicURL checks --public-url: an http(s) origin, no path, query
// or credentials, since it names where Core's own pages are.
func ParsePublicURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--public-url %q: %v", raw, err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("--public-url %q: want https://<name>[:port] (or http://), the address the browser opens", raw)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("--public-url %q: no host name", raw)
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("--public-url %q: give the origin only (scheme, name and port), without a path, query or credentials", raw)
	}
	return &url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host)}, nil
}

// viaPublicURL reports whether r was addressed to --public-url's name. The
// port is not compared: forwarders pass the name with or without it
// (nginx's $host has none; an HTTPS forward on 443 sends none).
func (c *Core) viaPublicURL(r *http.Request) bool {
	if c.publicURL == nil {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.EqualFold(strings.TrimSuffix(host, "."), c.publicURL.Hostname())
}

// ownOrigin is the origin of Core's own pages as the browser that sent r
// sees them: the public URL's for a request that came through it, else
// http://<Host> for a loopback Host (a forward on another port included),
// else "" (no page of Core's is served there).
func (c *Core) ownOrigin(r *http.Request) string {
	switch {
	case c.viaPublicURL(r):
		return c.publicURL.String()
	case isLoopbackHost(r.Host):
		return "http://" + strings.ToLower(r.Host)
	}
	return ""
}

// baseFor is Core's base URL for links given to the client of r (the
// approval window a page opens): where that client reached Core, so a
// link works through its forward; Core's own address otherwise.
func (c *Core) baseFor(r *http.Request) string {
	if o := c.ownOrigin(r); o != "" {
		return o
	}
	return c.coreURL
}

// PublicURL is --public-url, or "" when Core has none.
func (c *Core) PublicURL() string {
	if c.publicURL == nil {
		return ""
	}
	return c.publicURL.String()
}
