package mcpbridge

import (
	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// NewSessionBridge is the Bridge of one session, for `pedelec mcp` started
// by the agent Core drives in that session (its environment holds
// PEDELEC_CORE_URL, PEDELEC_THREAD_ID and PEDELEC_AGENT_SECRET). It shows
// that session's tools alone, under their own names, follows them with
// Core's per-session long-poll (wire.MCPSessionToolsPath), and calls them
// through the agent endpoint exactly as `pedelec tool-call` does: the same
// secret, the same checks, the same turn binding. It never reads the Core
// token, so it reaches no other session. Core proves the key expect gives
// (the one Core put in the agent's environment) on each connection before
// the secret goes out.
func NewSessionBridge(coreURL, sessionID, secret string, expect coreauth.KeySource, logger *log.Logger) *Bridge {
	b := NewBridge(coreURL, "", logger)
	b.HTTP = provingClient(b.CoreURL, expect)
	b.SessionID, b.Secret = sessionID, secret
	return b
}

func (b *Bridge) sessionMode() bool { return b.SessionID != "" }

// sessionGone: Core says the session is over for good. SESSION_ENDED is
// its end; THREAD_ACCESS_DENIED means Core knows no session with this
// secret (it was forgotten, or Core restarted and gave the session a new
// secret, which reaches the agent Core starts then, not this process).
// Neither comes back by retrying.
func (b *Bridge) sessionGone(werr *wire.Error) bool {
	return b.sessionMode() && (werr.Code == wire.CodeSessionEnded || werr.Code == wire.CodeThreadAccessDenied)
}
