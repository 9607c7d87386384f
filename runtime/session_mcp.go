package runtime

import (
	"os"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// mcpServerName is the name the agent gets Pedelec's MCP server under; it
// prefixes the page's tool names ("mcp_pedelec_x", "pedelec_x",
// "mcp__pedelec__x"), so it is short and [a-z0-9].
const mcpServerName = "pedelec"

// sessionMCP is the MCP server that gives s's agent the page's tools
// (provider.Turn.MCP), for providers that take one (ACP agents).
//
// This first form is Core's own Streamable HTTP endpoint with the Core
// token, which serves every session that takes MCP (servesMCP); the stdio
// form is `pedelec mcp` against this Core. It is to become an endpoint
// scoped to the one session with a credential of its own (issue 25, part
// B): only this function's body changes.
func (c *Core) sessionMCP(s *Session) *provider.MCPServer {
	m := &provider.MCPServer{
		Name:    mcpServerName,
		URL:     c.coreURL + wire.MCPPath,
		Headers: map[string]string{"Authorization": "Bearer " + c.token},
	}
	if exe, err := os.Executable(); err == nil {
		m.Command = exe
		m.Args = []string{"mcp", "--core-url", c.coreURL, "--state-dir", c.opts.StateDir}
	}
	return m
}

// takesMCP: the session's agent gets the page's tools as an MCP server.
func (s *Session) takesMCP() bool { return provider.TakesMCP(s.provider) }

// servesMCP: Core's MCP endpoints list and call this session's tools, for
// an external MCP client (provider mcp) or for its own agent (takesMCP).
func (s *Session) servesMCP() bool { return s.isExternal() || s.takesMCP() }

// closeProviderSession lets a provider that keeps something alive across
// the session's turns (a warm ACP agent) stop it.
func (s *Session) closeProviderSession() {
	if c, ok := s.provider.(provider.SessionCloser); ok {
		c.CloseSession(s.id)
	}
}

// mcpFirstTurn is the first turn's prompt for an agent that has the page's
// tools as MCP tools: the page's guidance and the message, without the
// `pedelec tool-call` rules (its tools are native to it).
func mcpFirstTurn(guidance, message string) string {
	if guidance == "" {
		return message
	}
	return "The web page you are working for says how to use its tools (they are the tools of the MCP server \"" +
		mcpServerName + "\"):\n\n" + guidance + "\n\n---\n\n" + message
}
