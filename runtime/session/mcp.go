package session

import (
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A session's own MCP endpoint (issue 25): the MCP server an agent Core
// drives (an ACP agent, given it at session/new) calls the page's tools
// through, natively, instead of running `pedelec tool-call` in a shell.
//
//   - Streamable HTTP at /mcp/session/<id> (wire.MCPSessionPath), on the
//     same mcpbridge layer as Core's /mcp, one MCP server per session.
//   - stdio: `pedelec mcp` with the session's environment, which follows
//     the session's tools with a long-poll (wire.MCPSessionToolsPath) and
//     calls them through the agent endpoint (mcpbridge.NewSessionBridge).
//
// Both take the session's agent secret, the credential its agent already
// holds for tool-call, compared in constant time (agentSession); it opens
// this session's endpoint and no other. The tools are the session's own,
// under their own names. Calls go through Session.callTool like any
// agent's: the same validation, consent, timeouts and late-result rules,
// bound to the running turn, refused with NO_ACTIVE_TURN between turns.
// When the session ends, its endpoint closes (calls cancelled, MCP
// sessions and streams ended) and every later request is refused.
// docs/mcp.md, "A session's own endpoint"; docs/security.md says what
// guards it. The endpoint itself is runtime/mcpserver's (session_endpoint.go).

// mcpServerName is the server's name in the agent's config: short and
// [a-z0-9], since agents build tool names from it (mcp_pedelec_<tool>,
// mcp__pedelec__<tool>).
const mcpServerName = "pedelec"

// mcpServer is s's MCP endpoint in both forms, for the provider to hand
// its agent (provider.Turn.MCP). It takes no lock (startTurn calls it
// under s.mu) and creates nothing: the endpoint is made when the agent
// first reaches it (runtime/mcpserver).
func (s *Session) mcpServer() *provider.MCPServer {
	coreURL := s.table.host.URL()
	return &provider.MCPServer{
		Name:    mcpServerName,
		URL:     coreURL + wire.MCPSessionPath + s.id,
		Headers: map[string]string{"Authorization": "Bearer " + s.secret},
		Command: s.table.cfg.Executable,
		Args:    []string{"mcp"},
		Env: []string{
			wire.EnvCoreURL + "=" + coreURL,
			wire.EnvThreadID + "=" + s.id,
			wire.EnvSecret + "=" + s.secret,
			wire.EnvCoreKey + "=" + s.table.cfg.CoreKey,
		},
	}
}

// takesMCP: the session's agent gets the page's tools as an MCP server.
func (s *Session) takesMCP() bool { return provider.TakesMCP(s.provider) }

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

// isExternal: the session's agent is an MCP client outside Core.
func (s *Session) isExternal() bool { return provider.IsExternal(s.provider) }

// callTurnLocked is the turn a new call belongs to: the running turn, or,
// for an external agent, none (an MCP client calls whenever it likes).
func (s *Session) callTurnLocked(now time.Time) (id string, startedAt time.Time, ok bool) {
	if s.turn != nil {
		return s.turn.id, s.turn.startedAt, true
	}
	if s.isExternal() {
		return "", now, true
	}
	return "", time.Time{}, false
}
