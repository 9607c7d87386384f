package runtime

import (
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// bodyDeadline gives every request body --read-timeout to arrive. A client
// that trickles a body is cut off; the deadline is lifted as soon as the
// body has been read, so a handler that then waits long (a tool call, a
// stream) is not. Requests without a body get no deadline at all.
func (c *Core) bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(c.opts.Limits.ReadTimeout)) == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { rc.SetReadDeadline(time.Time{}) }}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once the body is fully read.
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

// webHandler serves the demo files; any path that names no file, including
// paths that are not valid file names at all (invalid UTF-8 such as
// /%c0%ae%c0%ae/etc/passwd), is a plain 404.
func webHandler(files fs.FS) http.Handler {
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name == "" {
			name = "."
		}
		if !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		if _, err := fs.Stat(files, name); err != nil {
			http.NotFound(w, r)
			return
		}
		fileServer.ServeHTTP(w, r)
	})
}

// refuseOrigin answers a page whose origin is not allowed, with advice that
// can work: an opaque origin ("null": a file:// page, a sandboxed iframe, a
// data: URL) can never be allowed, so it is not told to try.
func (c *Core) refuseOrigin(w http.ResponseWriter, origin string) {
	if !allowableOrigin(origin) {
		c.refusals.Note("origin", origin, "refused a page's WebSocket: its origin cannot be allowed", "origin", origin,
			"fix", "serve the page over http:// or https:// (not file://, data: or a sandboxed iframe), then allow that origin with --allow-origin")
		writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
			"origin %q cannot use Pedelec Core: serve the page from an http:// or https:// origin and allow that origin with --allow-origin", origin)})
		return
	}
	c.refusals.Note("origin", origin, "refused a page's WebSocket: origin not allowed", "origin", origin,
		"fix", "restart with --allow-origin "+origin+" (or PEDELEC_ALLOW_ORIGIN="+origin+")")
	writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
		"origin %s may not use this Pedelec Core; start it with --allow-origin %s", origin, origin)})
}

// allowableOrigin tells whether --allow-origin could ever match origin:
// originAllowed needs a URL with a host.
func allowableOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme != "" && u.Host != ""
}
