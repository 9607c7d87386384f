package session

import (
	"fmt"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// transitions is the whole session state machine: every status and every
// edge a session may take. Session.refreshStatusLocked is the only code that
// changes a status, and it asks this table first.
//
//	idle ──send_text/prepare──▶ running ──tool_call──▶ waiting_tool_result
//	  ▲                           │  ▲                        │
//	  └──────── done ok ──────────┘  └──── last call settles ─┘
//	running/waiting ── turn failed ──▶ error ── send_text ──▶ running
//	idle ── the agent started ahead of the first turn failed to start ──▶ error
//	any but ended ── end_session / disconnect / shutdown ──▶ ended
//	idle ── an external (provider mcp) agent calls a tool ──▶ waiting_tool_result ── last call settles ──▶ idle
//	running/waiting_tool_result ── a call asks for consent ──▶ waiting_approval ── decided ──▶ waiting_tool_result/running
//	(idle ── an external agent's call asks for consent ──▶ waiting_approval ── decided ──▶ waiting_tool_result/idle)
var transitions = map[wire.Status][]wire.Status{
	wire.StatusIdle:              {wire.StatusRunning, wire.StatusWaitingToolResult, wire.StatusWaitingApproval, wire.StatusError, wire.StatusEnded}, // idle → waiting: an external (mcp) agent's call; idle → error: an early start failed
	wire.StatusRunning:           {wire.StatusWaitingToolResult, wire.StatusWaitingApproval, wire.StatusIdle, wire.StatusError, wire.StatusEnded},
	wire.StatusWaitingToolResult: {wire.StatusRunning, wire.StatusWaitingApproval, wire.StatusIdle, wire.StatusError, wire.StatusEnded},
	wire.StatusWaitingApproval:   {wire.StatusRunning, wire.StatusWaitingToolResult, wire.StatusIdle, wire.StatusError, wire.StatusEnded},
	wire.StatusError:             {wire.StatusRunning, wire.StatusEnded},
	wire.StatusEnded:             {},
}

// canTransition reports whether from → to is an edge of the state machine.
func canTransition(from, to wire.Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// checkTransition returns an error naming the refused edge; reaching it is a
// bug in Core, never a client's fault.
func checkTransition(from, to wire.Status) error {
	if from == to || canTransition(from, to) {
		return nil
	}
	return fmt.Errorf("session state machine: %s -> %s is not an allowed transition", from, to)
}
