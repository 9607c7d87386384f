// Package provider runs agent backends. An adapter knows how to find its
// executable, how to start a first and a resumed turn, how to read its
// output into normalized events, and how to report availability. Core owns
// sessions and turns; an adapter owns one turn's process (or loop).
package provider

import (
	"context"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// Provider is one agent backend (codex, claude, openai, script).
type Provider interface {
	// Name is the code a page passes as createSession({provider}).
	Name() string
	// Check reports whether the provider can run here, and why not.
	// It must be cheap enough to call on every list_providers.
	Check(ctx context.Context) wire.ProviderInfo
	// RunTurn runs one turn to completion and returns its outcome: nil when
	// the turn completed, a *wire.Error (PROVIDER_ERROR, PROVIDER_TIMEOUT, ...)
	// when it failed. It sends events through emit as they happen. When ctx is
	// cancelled (session ended, Core stopping) it stops the process (group)
	// and returns promptly; it never leaves a process behind.
	RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error
}

// Turn is everything an adapter needs to run one turn.
type Turn struct {
	SessionID string
	TurnID    string
	// Prompt is the text to give the agent: on a first turn the runtime
	// rules, guidance and tool index followed by the user's message; on a
	// resumed turn only the user's message.
	Prompt string
	// Message is the user's message alone (part of Prompt), for adapters
	// that act on it directly (script).
	Message string
	// ResumeID is the provider's own thread id from an earlier turn of this
	// session (Event.ProviderThreadID); empty on the first turn.
	ResumeID string
	Model    string
	// WorkDir is the session's private working directory; it exists.
	WorkDir string
	// Env is the complete environment for a child process: the user's
	// environment plus PEDELEC_THREAD_ID, PEDELEC_CORE_URL,
	// PEDELEC_AGENT_SECRET and a PATH whose first entry holds `pedelec` and
	// `pedelec-cli`.
	Env []string
	// Tools are the session's tool definitions, for adapters that give them
	// to the model natively (openai).
	Tools []schema.Tool
	// Calls runs a tool call through Core's broker, exactly as the agent
	// endpoint does (validation, timeout, status). For in-process adapters.
	Calls ToolCaller
	// Warmup is true for prepare(): the adapter starts the provider thread;
	// Core discards its chat output.
	Warmup bool
	// MCP is the MCP server that gives the agent this session's page tools
	// as native tools; nil for providers that do not take MCP servers
	// (those that do say so with TakesMCP).
	MCP *MCPServer
}

// MCPServer is how an agent reaches Pedelec's MCP server for one session:
// Core fills it (Core.sessionMCP) for a provider that TakesMCP.
type MCPServer struct {
	Name    string            // short [a-z0-9] server name the agent prefixes tool names with: "pedelec"
	URL     string            // Streamable HTTP endpoint (all six ACP agents support HTTP; copilot only HTTP)
	Headers map[string]string // e.g. Authorization: Bearer <credential>
	// The stdio form (`pedelec mcp ...`), for agents without HTTP.
	Command string
	Args    []string
	Env     []string
}

// MCPTaker is a provider whose agent takes the page's tools as an MCP
// server (Turn.MCP) rather than as `pedelec tool-call` commands.
type MCPTaker interface{ TakesMCP() bool }

// TakesMCP reports whether p wants Turn.MCP.
func TakesMCP(p Provider) bool {
	t, ok := p.(MCPTaker)
	return ok && t.TakesMCP()
}

// SessionCloser is a provider that keeps something alive across a
// session's turns (a warm agent process): Core calls CloseSession when the
// session ends, and when Core stops, so it dies with its session.
type SessionCloser interface{ CloseSession(sessionID string) }

// ToolCaller is Core's broker as an in-process adapter sees it. The result is
// the handler's JSON result; a failure is an error carrying a *wire.Error
// (wire.AsError finds its code).
type ToolCaller interface {
	CallTool(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
}

// Event is one normalized thing an adapter observed during a turn.
type Event struct {
	// ChatDelta is assistant text to append to this turn's message.
	ChatDelta string
	// ProviderThreadID is the provider's own id for resuming (Codex's
	// thread_id, Claude's session_id). Core stores the latest one.
	ProviderThreadID string
	// Warning is a non-fatal problem worth logging (Codex error items, retries).
	Warning string
	// Debug is a line for Core's debug log: how long an agent took to
	// start, phase by phase (what a benchmark reads; docs/performance.md).
	Debug string
	// Activity is a step of a tool of the agent's own (an ACP agent's
	// shell, reads, a permission Pedelec answered): Core shows it in the
	// page's status and the console (wire.EventAgentActivity).
	Activity *wire.AgentActivityData
}

// Settings are a user's per-provider settings from the config file.
type Settings struct {
	// Executable overrides how the provider's program is found.
	Executable string `json:"executable,omitempty" toml:"executable"`
	// Args are extra arguments added to every invocation.
	Args []string `json:"args,omitempty" toml:"args"`
	// Env are extra KEY=VALUE environment entries for the provider process.
	Env map[string]string `json:"env,omitempty" toml:"env"`
	// DefaultModel is used when createSession names no model.
	DefaultModel string `json:"defaultModel,omitempty" toml:"default_model"`
	// BaseURL and APIKey configure model endpoints (openai provider).
	BaseURL string `json:"baseURL,omitempty" toml:"base_url"`
	APIKey  string `json:"apiKey,omitempty" toml:"api_key"`
	// ACP runs the agent over the Agent Client Protocol (acp.go): for a
	// built-in agent with both adapters it picks one (absent: the
	// provider's default); a [providers.NAME] of the user's own with
	// acp = true is an ACP provider of that name.
	ACP *bool `json:"acp,omitempty" toml:"acp"`
	// AllowKinds are ACP tool kinds ("read", "search", "fetch", "edit",
	// "execute", ...) whose permission requests are allowed; every other
	// request that is not a call of the page's tools is rejected.
	AllowKinds []string `json:"allowKinds,omitempty" toml:"allow_kinds"`
	// IdleTimeout is how long a warm ACP agent process waits for the
	// session's next turn before it is stopped (Go duration, default 10m).
	IdleTimeout string `json:"idleTimeout,omitempty" toml:"idle_timeout"`
	// EarlyStart = false starts an ACP agent at the session's first turn
	// instead of when the session is created (or resumed, or restored by
	// a restarted Core). Absent means on.
	EarlyStart *bool `json:"earlyStart,omitempty" toml:"early_start"`
	// Enabled = false turns the provider off: it is listed as unavailable,
	// with the reason, and no session may use it. Absent means on.
	Enabled *bool `json:"enabled,omitempty" toml:"enabled"`
}

// TurnedOff reports whether the settings turn their provider off.
func (s Settings) TurnedOff() bool { return s.Enabled != nil && !*s.Enabled }
