// Package mcpserve shows the tools of Core's mcp sessions as one MCP
// server's tools. `pedelec mcp` (over stdio, fed by the bridge) and Core's
// own /mcp endpoint (fed in-process) both build their server here, so the
// names, schemas and results an MCP client sees are the same on both.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Caller runs one call in one session through Core's broker. It returns
// the handler's JSON result, or an error (a *wire.Error keeps its code).
type Caller func(ctx context.Context, sessionID, tool string, args json.RawMessage) (json.RawMessage, error)

// Mirror is an MCP server whose tools follow a snapshot of mcp sessions.
type Mirror struct {
	server *Server
	call   Caller

	mu    sync.Mutex
	tools map[string]mirrored // by MCP name
}

// mirrored is one listed tool and what it was built from, so an update
// touches (and notifies about) only what changed.
type mirrored struct {
	sessionID string
	tool      string
	key       string // the tool as listed, marshalled
}

// Instructions tell the MCP client what these tools are.
const Instructions = `These tools are declared by web pages open in the user's browser (Pedelec). Each call runs the page's own handler and returns its JSON result. A result with isError true and code TOOL_ARGS_INVALID lists every problem with the arguments: fix them all and call again. Tools appear and disappear as the user opens and closes pages.`

// NewMirror makes an MCP server with no tools yet. It advertises tools
// (and their list_changed) even while no page is open, so the client knows
// to listen for them.
func NewMirror(version string, call Caller) *Mirror {
	m := &Mirror{call: call, tools: map[string]mirrored{}}
	m.server = NewServer(Implementation{Name: "pedelec", Title: "Pedelec: the tools of your open web pages", Version: version}, Instructions)
	return m
}

// Server is the MCP server, for a transport to run.
func (m *Mirror) Server() *Server { return m.server }

// Update makes the server's tools those of snap. Tools that appear, change
// or disappear are added or removed; the server then sends one
// notifications/tools/list_changed to every connected client.
func (m *Mirror) Update(snap wire.MCPSnapshot) {
	want := map[string]Tool{}
	targets := map[string]mirrored{}
	several := len(snap.Sessions) > 1
	for _, s := range snap.Sessions {
		for _, t := range s.Tools {
			name := ToolName(s, t.Name, several)
			tool := Tool{
				Name:        name,
				Title:       title(s, t.Name, several),
				Description: t.Description,
				InputSchema: t.ArgsSchema,
			}
			if !isObjectSchema(t.ArgsSchema) {
				// Core accepts only object argsSchemas; anything else is a bug.
				continue
			}
			key, _ := json.Marshal(tool)
			want[name] = tool
			targets[name] = mirrored{sessionID: s.SessionID, tool: t.Name, key: string(key)}
		}
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	var gone []string
	for name, had := range m.tools {
		if now, ok := targets[name]; !ok || now.key != had.key || now.sessionID != had.sessionID {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		m.server.RemoveTools(gone...)
		for _, name := range gone {
			delete(m.tools, name)
		}
	}
	for name, tool := range want {
		if _, ok := m.tools[name]; ok {
			continue
		}
		target := targets[name]
		m.server.AddTool(tool, m.handler(target.sessionID, target.tool))
		m.tools[name] = target
	}
}

// ToolName is the name an MCP client sees: the tool's own name while one
// mcp session is live, else "page<ordinal>__<name>", where the ordinal
// numbers the mcp sessions of this Core in creation order (see docs/mcp.md).
func ToolName(s wire.MCPSession, tool string, several bool) string {
	if !several {
		return tool
	}
	return fmt.Sprintf("page%d__%s", s.Ordinal, tool)
}

func title(s wire.MCPSession, tool string, several bool) string {
	if !several {
		return tool
	}
	return fmt.Sprintf("%s (page %d, %s)", tool, s.Ordinal, s.Origin)
}

func isObjectSchema(raw json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m["type"] == "object"
}

// handler forwards one MCP tools/call to the session's broker. Pedelec
// errors (TOOL_ARGS_INVALID, TOOL_TIMEOUT, SESSION_ENDED...) come back
// in-band as isError results, so the model reads them and can correct
// itself; the request's ctx ending (notifications/cancelled, the client
// gone) cancels the pending call and aborts the handler's ctx.signal.
func (m *Mirror) handler(sessionID, tool string) ToolFunc {
	return func(ctx context.Context, args json.RawMessage) *CallToolResult {
		if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
			args = json.RawMessage("{}")
		}
		result, err := m.call(ctx, sessionID, tool, args)
		if err != nil {
			return ErrorResult(wire.AsError(err))
		}
		return Result(result)
	}
}

// Result is a handler's JSON result as MCP content: the JSON as text (what
// every client shows the model) and, when it is an object, also as
// structuredContent (clients validate that it is one).
// The result is JSON Core checked, so its first byte tells an object: it
// is not decoded just to ask.
func Result(result json.RawMessage) *CallToolResult {
	res := &CallToolResult{Content: []Content{TextContent(string(result))}}
	if trimmed := bytes.TrimLeft(result, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		res.StructuredContent = result
	}
	return res
}

// ErrorResult is a Pedelec error as an isError result: the same
// {"ok":false,"error":{code,message,details}} that `pedelec tool-call` prints.
func ErrorResult(werr *wire.Error) *CallToolResult {
	body, _ := json.Marshal(wire.AgentResult{OK: false, Error: werr})
	return &CallToolResult{
		IsError:           true,
		Content:           []Content{TextContent(string(body))},
		StructuredContent: json.RawMessage(body),
	}
}
