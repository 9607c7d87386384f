package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// mcpLongPoll bounds one bridge long-poll; `pedelec mcp` asks again at once.
const mcpLongPoll = 25 * time.Second

// mountMCP adds the MCP surface: the bridge `pedelec mcp` uses and the
// Streamable HTTP endpoint /mcp. Both need the Core token and refuse
// browser origins that are not allowed (MCP's DNS-rebinding rule); the
// Host check and the peer check cover them like every endpoint.
func (c *Core) mountMCP(mux *http.ServeMux) {
	// The handler's ctx.progress reaches a client that asked for progress
	// (mcp_progress.go); until it reports, the mirror says that it waits.
	call := func(ctx context.Context, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, *wire.ResultFile, error) {
		out := c.AnswerMCPTool(ctx, sessionID, tool, args, progress)
		if out.Error != nil {
			return nil, nil, out.Error
		}
		return out.Result, out.ResultFile, nil
	}
	mirror := mcpbridge.NewMirror(c.opts.Version, call, mcpbridge.Options{Logger: c.log})
	mirror.Update(c.MCPSnapshot())
	go func() {
		snap := c.MCPSnapshot()
		for c.mcp.ctx.Err() == nil {
			snap = c.WatchMCP(c.mcp.ctx, snap.Core, snap.Version)
			mirror.Update(snap)
		}
	}()
	streamable := mcpbridge.NewHTTPHandler(mirror, c.opts.MaxMessageBytes)
	context.AfterFunc(c.mcp.ctx, streamable.Close) // Core stopping ends every MCP session

	mux.Handle("GET "+wire.MCPToolsPath, c.mcpGuard(http.HandlerFunc(c.serveMCPTools)))
	mux.Handle("POST "+wire.MCPCallPath, c.mcpGuard(http.HandlerFunc(c.serveMCPCall)))
	for _, method := range []string{"GET", "POST", "DELETE"} { // the Streamable HTTP transport's three
		mux.Handle(method+" "+wire.MCPPath, c.mcpGuard(streamable))
	}
	c.mountSessionMCP(mux)
}

// mcpGuard checks Origin and the bearer token, and ends the request when
// Core shuts down (an MCP client's open event stream, a long-poll).
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
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(c.mcp.ctx, cancel)
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// serveMCPTools answers the bridge's long-poll: the tool set as soon as it
// differs from the one the caller has (?core=&after=), or after mcpLongPoll.
func (c *Core) serveMCPTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
	ctx, cancel := context.WithTimeout(r.Context(), mcpLongPoll)
	defer cancel()
	writeJSON(w, http.StatusOK, c.WatchMCP(ctx, q.Get("core"), after))
}

// serveMCPCall runs one call for `pedelec mcp`; the request is held open
// until the result. The client dropping the request cancels the call.
func (c *Core) serveMCPCall(w http.ResponseWriter, r *http.Request) {
	var req wire.MCPCallRequest
	if err := c.readAgentRequest(w, r, &req); err != nil {
		writeAgent(w, nil, err)
		return
	}
	if req.SessionID == "" || req.Tool == "" {
		writeAgent(w, nil, wire.Errorf(wire.CodeInvalidInput, "sessionId and tool are required"))
		return
	}
	if req.Stream {
		c.serveMCPCallStream(w, r, req)
		return
	}
	writeAgentResult(w, c.AnswerMCPTool(r.Context(), req.SessionID, req.Tool, req.Args, nil))
}

// writeToken writes the Core token to <state-dir>/core-token (mode 0600)
// for `pedelec mcp` to read; only this user can.
func (c *Core) writeToken() error {
	return c.writeSecretFile(wire.CoreTokenFile, c.token, "Core token")
}

// removeToken removes the token file at shutdown (removeSecretFile).
func (c *Core) removeToken() { c.removeSecretFile(wire.CoreTokenFile, c.token) }
