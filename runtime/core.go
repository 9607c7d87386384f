// Package runtime is Core: sessions and turns, the status state machine, the
// tool-call broker, the HTTP + WebSocket transport with its origin and host
// checks, and the agent's dial-back endpoint. Importers alias it where they
// also need the standard library's runtime package.
package runtime

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Options configure Core. Zero values mean the documented defaults.
type Options struct {
	// StateDir holds each session's private work directory. Required.
	StateDir string
	// ToolTimeout is the wait for a tool without timeoutMs (default 60s).
	ToolTimeout time.Duration
	// TurnTimeout is Core's own deadline for one provider turn (default
	// 15m): Codex retries forever when its model server is down, so a turn
	// must not rely on the provider to end itself.
	TurnTimeout time.Duration
	// ResumeWindow is how long a session whose page disconnected (with
	// autoEndOnDisconnect false) waits for a page to resume it before it
	// ends (default 10m), so an abandoned session cannot live forever.
	ResumeWindow time.Duration
	// EventLogSize bounds the events kept per session for a page that
	// resumes after losing its connection (default 2000).
	EventLogSize int
	// MaxPendingCalls bounds the tool calls waiting at once in one session (default 8).
	MaxPendingCalls int
	// MaxMessageBytes bounds every WebSocket frame and agent request (default 1 MiB).
	MaxMessageBytes int64
	// MaxArgsBytes bounds one call's arguments (default 256 KiB).
	MaxArgsBytes int
	// MaxInlineResultBytes is the largest result handed to an agent as it
	// is; a larger one is written to a file in the session's assets and
	// the agent gets where it is (result_file.go). 0 means the default
	// (16 KiB); negative, never write a file.
	MaxInlineResultBytes int
	// AllowOrigins are page origins allowed besides Core's own, exact or with
	// a "*" port or subdomain wildcard ("http://localhost:*").
	AllowOrigins []string
	// OriginApprovalTimeout is how long an unapproved origin's
	// createSession/resumeSession waits for the user (default
	// approvals.DefaultOriginTimeout).
	OriginApprovalTimeout time.Duration
	// OriginRejectCooldown is how long a site the user rejected may not
	// ask again (default approvals.DefaultRejectCooldown; negative: at once).
	OriginRejectCooldown time.Duration
	// AllowHosts are Host header names accepted besides loopback names;
	// needed only when Core is deliberately exposed beyond loopback.
	AllowHosts []string
	// AllowOtherUsers turns the peer check off (runtime/peercred): programs of any
	// local user may connect. Off by default.
	AllowOtherUsers bool
	// Limits bound sessions, skills and slow clients (limits.go).
	Limits Limits
	// Executable is the pedelec binary that provider processes find on their
	// PATH as `pedelec` and `pedelec-cli` (default: this process's binary).
	Executable string
	// AssetTicketTTL is how long an asset transfer ticket stays valid (default 30s).
	// The SDK uses a ticket at once; the lifetime only has to cover a slow
	// event loop.
	AssetTicketTTL time.Duration
	// Providers are the agent backends.
	Providers *provider.Registry
	Logger    *log.Logger
	Version   string
}

// The defaults of Options, in one place: setDefaults applies them and
// `pedelec serve` shows them as its flags' defaults.
const (
	DefaultToolTimeout     = 60 * time.Second
	DefaultTurnTimeout     = 15 * time.Minute
	DefaultResumeWindow    = 10 * time.Minute
	DefaultMaxPendingCalls = 8
	DefaultMaxMessageBytes = 1 << 20
	DefaultMaxArgsBytes    = 256 << 10
	// DefaultMaxInlineResultBytes keeps a result well inside what agents'
	// shell tools pass on whole (Claude Code's Bash keeps 30 000
	// characters and cuts the rest, which breaks the JSON) and about 4k
	// tokens of context: docs/decisions.md.
	DefaultMaxInlineResultBytes = 16 << 10
	DefaultEventLogSize         = 2000
	DefaultAssetTicketTTL       = 30 * time.Second
)

func (o *Options) setDefaults() {
	if o.ToolTimeout <= 0 {
		o.ToolTimeout = DefaultToolTimeout
	}
	if o.TurnTimeout <= 0 {
		o.TurnTimeout = DefaultTurnTimeout
	}
	if o.ResumeWindow <= 0 {
		o.ResumeWindow = DefaultResumeWindow
	}
	if o.EventLogSize <= 0 {
		o.EventLogSize = DefaultEventLogSize
	}
	if o.MaxPendingCalls <= 0 {
		o.MaxPendingCalls = DefaultMaxPendingCalls
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxArgsBytes <= 0 {
		o.MaxArgsBytes = DefaultMaxArgsBytes
	}
	if o.MaxInlineResultBytes == 0 {
		o.MaxInlineResultBytes = DefaultMaxInlineResultBytes
	}
	if o.AssetTicketTTL <= 0 {
		o.AssetTicketTTL = DefaultAssetTicketTTL
	}
	o.Limits.setDefaults()
	if o.Executable == "" {
		o.Executable, _ = os.Executable()
	}
	if o.Logger == nil {
		o.Logger = log.New(os.Stderr)
	}
	if o.Providers == nil {
		o.Providers = provider.NewRegistry("")
	}
}

// Core owns every session of one `pedelec serve`.
//
// Locks. Core's mutexes have one order; a goroutine holding one may take
// only those after it, never one before:
//
//	Core.mu → Session.mu → conn.mu, mcpHub.mu, persist.Writer.mu
//	sessionMCPs.mu → Session.mu
//	persist.Writer.mu → persist.Journal.fileMu → persist.Journal.mu
//
// The persist package's locks come last: Writer.Put appends to the journal
// under Writer.mu, and Writer.Sync, which a page's connection calls before
// it writes, takes only the journal's two.
// approvals.Book.mu is a leaf too: it is taken under any of the above
// (Core asks the Book whether an origin is approved), holds nothing else
// but the state database's own transaction while a grant is written
// (persist.DB.SaveGrant, not the Writer), and the Book calls back
// (OnRevoke: ending sessions) and feeds its listeners without it.
// sessionMCPs.mu is never held with Core.mu: it asks a session whether it
// has ended (Session.mu), nothing else; a sessionEndpoint's mu is a leaf.
// memoryReleaser.mu, refusalLog.mu, the asset tickets' lock (runtime/assets:
// ticketBook.mu, inside Core's assets.Transfers), writeBatch.mu, conn.approvalMu,
// callprogress.Box.mu (a call's latest progress, put under Session.mu),
// streamAnswer.mu (agent_stream.go) and console.Signal.mu (runtime/console: Core.console, bumped under
// Session.mu and Core.mu) are leaves: nothing else is taken while one is
// held. console.Notes have no lock: each session's are under its
// Session.mu. The console's feeds take Core.mu, then each Session.mu in
// turn (session_console.go), never one inside the other. A provider may hold
// its own lock while it calls emit (which takes Session.mu), so Core never
// calls a provider while it holds Session.mu (exportProviderState runs
// without it). mcpbridge's locks (and the MCP SDK's under it) are never
// held while it calls Core, nor Core's while Core calls it. What a session needs of Core under its own
// lock takes no Core lock: closing is atomic, opts and coreURL do not
// change once serving. Code that ends, retires or detaches a session
// (End, retire, mcpSessionsChanged, Session.detached) takes each lock in
// turn, never one inside another against the order. Issue 20: detached
// and a turn's end asked Core.isClosing under Session.mu while
// createSession and /healthz held Core.mu and waited for a Session.mu,
// and Core hung for good; churn_test.go keeps it from coming back.
type Core struct {
	opts    Options
	log     *log.Logger
	coreURL string // http://127.0.0.1:PORT, what provider processes dial back; set by Listen and Serve

	refusals *refusalLog     // refused requests, logged once and then counted
	peers    *peercred.Check // the peer check, with what it refused and admitted
	memory   memoryReleaser  // hands memory back after ended sessions and large manifests (memory_release.go)

	mu       sync.Mutex
	sessions map[string]*Session
	threads  map[string]string // agentThreadID → session id, for the agent endpoint
	// closing is set once, under mu, by Shutdown; read anywhere, with or
	// without mu: sessions ask under their own lock (see Locks above).
	closing atomic.Bool
	turns   sync.WaitGroup  // running turn goroutines
	persist *persist.Writer // the state database's writer

	// pageMessages and pageFrames count what Core has written to pages:
	// WebSocket messages, and the frames in them (DebugPath; issue 15).
	pageMessages, pageFrames atomic.Int64

	mcp       *mcpHub           // the sessions external MCP clients reach (mcp_hub.go)
	token     string            // bearer token of /mcp, the MCP bridge and DebugPath (mcp_http.go)
	transfers *assets.Transfers // session assets' transfer endpoints and their tickets (session_assets.go)

	// sessionMCPs are the sessions' own MCP endpoints (session_mcp_endpoint.go).
	sessionMCPs sessionMCPs

	// The console (runtime/console, adapted in session_console.go): what
	// wakes its feeds, the approver token its page carries
	// (approver_token.go), and the approvals it shows: nil until
	// runtime/approvals' book is set here.
	console          console.Signal
	approver         string
	consoleApprovals func() wire.ApprovalsState
	book             *approvals.Book  // origin grants and requests waiting for the user (origin_gate.go)
	guard            *approvals.Guard // who may read and make decisions
}

// NewCore makes a Core; Serve (server.go) puts it on the network.
func NewCore(opts Options) (*Core, error) {
	opts.setDefaults()
	if opts.StateDir == "" {
		return nil, wire.Errorf(wire.CodeInvalidInput, "state dir is required")
	}
	if err := prepareStateDir(opts.StateDir); err != nil {
		return nil, err
	}
	c := &Core{opts: opts, log: opts.Logger, sessions: map[string]*Session{}, threads: map[string]string{},
		refusals: newRefusalLog(opts.Logger, opts.Limits.RefusalLogWindow), mcp: newMCPHub(), token: newID("pt_"),
		approver: newApproverToken()}
	c.transfers = assets.NewTransfers(assetHost{c}, newFieldLog(c.log), opts.AssetTicketTTL)
	c.peers = peercred.New(peercred.Options{UID: os.Getuid(), AllowOtherUsers: opts.AllowOtherUsers, OnRefused: c.notePeerRefused})
	if err := c.recover(); err != nil {
		return nil, err
	}
	return c, nil
}

// isClosing takes no lock, so a session may ask under its own.
func (c *Core) isClosing() bool { return c.closing.Load() }

// indexSessionLocked makes s findable by its id and its agent's thread id.
func (c *Core) indexSessionLocked(s *Session) {
	c.sessions[s.id] = s
	c.threads[agentThreadID(s.id)] = s.id
	c.console.Bump()
}

// sessionForAgent finds a session by the id its agent was given
// (agentThreadID) or by the session id itself, which agents of sessions
// created before thread ids existed still hold.
func (c *Core) sessionForAgent(threadID string) (*Session, error) {
	c.mu.Lock()
	if id, ok := c.threads[threadID]; ok {
		threadID = id
	}
	c.mu.Unlock()
	return c.session(threadID)
}

// session finds a live or recently ended session.
func (c *Core) session(id string) (*Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	if !ok {
		return nil, wire.Errorf(wire.CodeThreadNotFound, "no session %q in this Core", id).WithDetails(map[string]any{"sessionId": id})
	}
	return s, nil
}

// sessionForOrigin finds a session and checks that origin owns it.
func (c *Core) sessionForOrigin(id, origin string) (*Session, error) {
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	if s.origin != origin {
		return nil, wire.Errorf(wire.CodeThreadAccessDenied, "session %q belongs to another origin", id).
			WithDetails(map[string]any{"sessionId": id, "origin": origin})
	}
	return s, nil
}

// forget drops an ended session's record after a while; until then later
// requests for it get SESSION_ENDED rather than THREAD_NOT_FOUND.
func (c *Core) forget(id string, after time.Duration) {
	time.AfterFunc(after, func() {
		c.mu.Lock()
		delete(c.sessions, id)
		delete(c.threads, agentThreadID(id))
		c.mu.Unlock()
		c.console.Bump()
		c.book.EndSession(id) // its "allow for this session" choices go with it
	})
}

// Shutdown stops Core without ending its sessions: running turns are cut
// off (their provider process groups killed, their pending calls failed
// with TURN_INTERRUPTED, the session left in error), every session's record
// is written, and the state database is closed, so the next `pedelec serve`
// on the same state directory gives each page its session back. Work
// directories stay for those sessions. It waits for the turns to finish,
// or for ctx.
func (c *Core) Shutdown(ctx context.Context) {
	// Under mu, so no session is created after the list below is taken.
	c.mu.Lock()
	c.closing.Store(true)
	all := make([]*Session, 0, len(c.sessions))
	for _, s := range c.sessions {
		all = append(all, s)
	}
	c.mu.Unlock()
	c.mcp.cancel() // MCP event streams and long-polls end
	for _, s := range all {
		s.mu.Lock()
		if s.turn != nil && !s.ended {
			s.failPendingLocked(wire.Errorf(wire.CodeTurnInterrupted, "Core is shutting down; the call was not answered").
				WithDetails(map[string]any{"turnId": s.turn.id, "reason": "shutdown"}), wire.OutcomeInterrupted)
			s.turn.cancel()
		}
		s.mu.Unlock()
	}
	done := make(chan struct{})
	go func() { c.turns.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		c.log.Warn("shutdown: turns still running at the deadline")
	}
	// Warm agents (ACP) stop with Core; a restarted Core loads their
	// sessions into new ones.
	var closing sync.WaitGroup
	for _, s := range all {
		closing.Go(s.closeProviderSession) // each waits for its agent's grace: together
	}
	closing.Wait()
	// Turns still ending now must not leave half of their end behind
	// (a status change written, its done not): each session stops
	// recording between two of its critical sections, and the restarted
	// Core reports whatever was cut off.
	for _, s := range all {
		s.mu.Lock()
		s.frozen = true
		s.mu.Unlock()
	}
	c.persist.Close()
}

// SessionCount is the number of live (not ended) sessions.
func (c *Core) SessionCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.sessions {
		if !s.isEnded() {
			n++
		}
	}
	return n
}
