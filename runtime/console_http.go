package runtime

import (
	"bytes"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// mountConsole adds the console: its page (when Assets has its files), its
// feed and the sessions' records, all behind the approvals Guard's Read
// (docs/security.md, "The console"). The approvals API under the same
// wire.ApprovalsPath is mounted by mountApprovals, behind the Guard's API.
func (c *Core) mountConsole(mux *http.ServeMux, files fs.FS) {
	mux.Handle("GET "+wire.ConsoleFeedPath, c.guard.Read(http.HandlerFunc(c.serveConsoleFeed)))
	mux.Handle("GET "+wire.ConsoleRecordPath+"{id}/record", c.guard.Read(http.HandlerFunc(c.serveConsoleRecord)))
	if files != nil {
		mux.Handle("GET "+wire.ConsolePath, c.guard.Read(consolePage(files, c.approver)))
	}
}

// approverTokenMarker in the console's index.html is replaced by the
// approver token as it is served: the page reads it from a <meta>, as the
// CSP allows no inline script.
const approverTokenMarker = "{{APPROVER_TOKEN}}"

// consolePage serves index.html, with the token, at wire.ConsolePath and
// the console's other files by name; nothing else.
func consolePage(files fs.FS, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, wire.ConsolePath)
		if name == "" {
			name = "index.html"
		}
		if strings.Contains(name, "/") || !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		data, err := fs.ReadFile(files, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if name == "index.html" {
			data = bytes.ReplaceAll(data, []byte(approverTokenMarker), []byte(html.EscapeString(token)))
		}
		ctype := mime.TypeByExtension(path.Ext(name))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		w.Header().Set("Content-Type", ctype)
		// The page holds the token: never kept by a cache.
		w.Header().Set("Cache-Control", "no-store")
		w.Write(data)
	})
}
