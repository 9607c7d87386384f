package runtime

import (
	"net/http"
	"path/filepath"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The Core token: the bearer token of /mcp, the MCP bridge and DebugPath,
// written for `pedelec mcp` to read.

// mcpGuard lets a request reach Core's MCP surfaces (runtime/mcpserver):
// it refuses browser origins that are not allowed (MCP's DNS-rebinding
// rule) and requests without the Core token.
func (c *Core) mcpGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin, ok := c.originAllowed(r); !ok {
			c.log.Warn("refused an MCP request from a browser origin", "origin", origin, "path", r.URL.Path)
			writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
				"origin %s may not use Pedelec's MCP endpoints", origin)})
			return
		}
		if !c.hasCoreToken(r) {
			c.log.Warn("refused an MCP request without this Core's token", "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="pedelec"`)
			writeJSON(w, http.StatusUnauthorized, wire.AgentResult{Error: wire.Errorf(wire.CodeCoreTokenInvalid,
				"send this Core's token as \"Authorization: Bearer <token>\"; `pedelec serve` writes it to %s",
				filepath.Join(c.opts.StateDir, wire.CoreTokenFile))})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeToken writes the Core token to <state-dir>/core-token (mode 0600)
// for `pedelec mcp` to read; only this user can.
func (c *Core) writeToken() error {
	return c.writeSecretFile(wire.CoreTokenFile, c.token, "Core token")
}

// removeToken removes the token file at shutdown (removeSecretFile).
func (c *Core) removeToken() { c.removeSecretFile(wire.CoreTokenFile, c.token) }
