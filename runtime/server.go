package runtime

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Assets are the files Core serves besides its API: the SDK module and the
// demo page. They come from the sdk and web packages' embedded files.
type Assets struct {
	SDK fs.FS // holds dist/pedelec.js, dist/pedelec.d.ts and dist/webmcp.js
	Web fs.FS // holds index.html and the demo's files at its root
	// Console holds the console's index.html and files (web/console).
	Console fs.FS
}

// Handler is Core's whole HTTP surface.
func (c *Core) Handler(assets Assets) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			// A page's SDK asks whether what answers at its URL is Pedelec
			// Core (through a port forward, often it is something else): it
			// may read the answer, which then says no more than that.
			w.Header().Set("Access-Control-Allow-Origin", "*")
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "service": wire.ServiceName})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "service": wire.ServiceName, "version": c.opts.Version, "sessions": c.SessionCount()})
	})
	mux.Handle("GET /ws", c.pages)
	mux.Handle("GET "+wire.CoreProofPath, c.identity)
	mux.HandleFunc("GET "+DebugPath, c.serveDebugCounts)
	c.agents.Mount(mux)
	c.mcp.Mount(mux)
	c.mountApprovals(mux)
	c.transfers.Route(mux)
	c.mountConsole(mux, assets.Console)
	if assets.SDK != nil {
		mux.Handle("GET /sdk/", sdkHandler(assets.SDK))
	}
	if assets.Web != nil {
		mux.Handle("GET /", demoHeaders(webHandler(assets.Web)))
	}
	return c.peers.Handler(c.bodyDeadline(c.checkHost(mux)))
}

// checkHost refuses any request whose Host is not a loopback name.
func (c *Core) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.hostAllowed(r) {
			c.refusals.Note("host", r.Host, "refused request with a non-loopback Host (DNS rebinding?)", "host", r.Host, "path", r.URL.Path,
				"hint", "open Core at http://127.0.0.1 or http://localhost, or pass --allow-host")
			// Readable by the page whose SDK asks (fetchProbe): the refusal
			// is the next step a user behind a forward needs.
			w.Header().Set("Access-Control-Allow-Origin", "*")
			writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeHostNotAllowed,
				"Host %q is not a loopback name; Pedelec answers only requests addressed to 127.0.0.1, ::1 or localhost, or to the name given with --public-url (a port forward, docs/remote.md)", r.Host).
				WithDetails(map[string]any{"host": r.Host})})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sdkHandler serves the SDK with CORS headers, so any page can import the
// module straight from Core. Serving code is harmless; the WebSocket is
// what the origin allowlist guards.
func sdkHandler(sdk fs.FS) http.Handler {
	files := map[string]string{"/sdk/pedelec.js": "dist/pedelec.js", "/sdk/pedelec.d.ts": "dist/pedelec.d.ts", "/sdk/webmcp.js": "dist/webmcp.js"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := fs.ReadFile(sdk, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if strings.HasSuffix(name, ".js") {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/typescript; charset=utf-8")
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(data)
	})
}

// writeJSON is wire.WriteJSON, under the short name Core's handlers use.
func writeJSON(w http.ResponseWriter, status int, v any) { wire.WriteJSON(w, status, v) }

// baseURL is the http:// URL of a listener's address; an unspecified IP
// (0.0.0.0, ::) is reached on 127.0.0.1.
func baseURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port))
}

// URL is the base URL provider processes and people use.
func (c *Core) URL() string { return c.coreURL }

// Serve runs the HTTP server on l until ctx is cancelled, then shuts down
// without ending the sessions (Shutdown): running turns are cut off and
// their provider processes stopped, every session is written down with
// its work directory kept, and the next `pedelec serve` on the same state
// directory gives each page its session back.
func (c *Core) Serve(ctx context.Context, l net.Listener, assets Assets) error {
	// Providers dial back to the address l listens on; sessions start
	// only once the server below answers.
	if c.coreURL == "" {
		c.coreURL = baseURL(l.Addr())
	}
	srv := &http.Server{Handler: c.Handler(assets), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, ConnContext: peercred.ConnContext}
	if err := c.writeToken(); err != nil {
		return err
	}
	defer c.removeToken()
	if err := c.writeApproverToken(); err != nil {
		return err
	}
	defer c.removeApproverToken()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(c.peers.Listener(l)) }()
	c.sessions.StartRestoredAgents()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	c.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.Shutdown(sctx)
	srv.Shutdown(sctx)
	return nil
}
