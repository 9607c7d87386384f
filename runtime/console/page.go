package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// approverTokenMarker in the console's index.html is replaced by the
// approver token as it is served: the page reads it from a <meta>, as the
// CSP allows no inline script.
const approverTokenMarker = "{{APPROVER_TOKEN}}"

// page serves index.html, with the token, at wire.ConsolePath and the
// console's other files by name; nothing else.
func page(files fs.FS, token string) http.Handler {
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

// serveRecord answers one session's record as a JSON download.
func (s *Server) serveRecord(w http.ResponseWriter, r *http.Request) {
	src, err := s.Host.Session(r.PathValue("id"))
	if err != nil {
		wire.WriteJSON(w, http.StatusNotFound, wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	v := View(src.State())
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="pedelec-%s.json"`, v.ID))
	w.Header().Set("Cache-Control", "no-store")
	data, _ := json.MarshalIndent(v, "", "  ")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(append(data, '\n'))
}
