// Package runtime is Core's composition root: its options, the server that
// puts the session domain (runtime/session) behind its transports
// (runtime/page, runtime/agentserver, runtime/mcpserver) and its guards,
// recovery at start, the tokens it writes, and shutdown. Importers alias
// it where they also need the standard library's runtime package.
package runtime

import (
	"context"
	"net/url"
	"os"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/agentserver"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/fieldlog"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/mcpserver"
	"github.com/kaoruisaac/pedelec/runtime/page"
	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/refusals"
	"github.com/kaoruisaac/pedelec/runtime/session"
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
	// the agent gets where it is (runtime/session/result_file.go). 0 means the default
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
	// MCPCommand is the `pedelec mcp` command line that reaches this Core
	// (with --state-dir when it is not the default), which Core's own
	// pages show; empty: "pedelec mcp".
	MCPCommand string
	// PublicURL is where the browser reaches Core through a forward with a
	// name of its own (an editor's or Codespaces' HTTPS forward): that name
	// is accepted, and its origin is Core's own (public_url.go). Empty:
	// loopback only.
	PublicURL string
	// AllowOtherUsers turns the peer check off (runtime/peercred): programs of any
	// local user may connect. Off by default.
	AllowOtherUsers bool
	// Limits bound sessions, skills and slow clients (runtime/session's limits.go).
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
	o.Limits.SetDefaults()
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

// Limits bound what one client can make Core hold (runtime/session).
type Limits = session.Limits

// DefaultLimits are the limits Core uses when none are given.
func DefaultLimits() Limits { return session.DefaultLimits() }

// Core is one `pedelec serve`: the composition root that makes the
// session domain (runtime/session), puts its transports in front of it
// (the page's WebSocket, runtime/page; the agent endpoint,
// runtime/agentserver; the MCP surfaces, runtime/mcpserver) behind the
// guards every request passes (security.go, slow_clients.go), and owns the
// lifecycle: recovery at start (recover.go), the tokens it writes for
// local programs, and shutdown.
//
// Core holds no lock of its own: each package writes the order of its
// locks where they are declared (runtime/session's above Table), and no
// package calls another while it holds one of its own, but for the few
// leaves written there.
type Core struct {
	opts      Options
	log       *log.Logger
	coreURL   string   // http://127.0.0.1:PORT, what provider processes dial back; set by Serve
	publicURL *url.URL // --public-url, nil for none (public_url.go)

	// ctx is Core's lifetime: cancelled by Shutdown, it stops the
	// console's feeds, the approvals subscription and every MCP stream.
	ctx    context.Context
	cancel context.CancelFunc

	refusals *refusals.Log   // refused requests, logged once and then counted
	peers    *peercred.Check // the peer check, with what it refused and admitted

	persist  *persist.Writer // the state database's writer
	sessions *session.Table  // the session domain

	pages     *page.Server        // the page's WebSocket
	agents    *agentserver.Server // the agent endpoint
	mcp       *mcpserver.Server   // /mcp, the bridge's routes and each session's endpoint
	transfers *assets.Transfers   // session assets' transfer endpoints and their tickets (assets_host.go)

	token    string             // bearer token of /mcp, the MCP bridge and DebugPath (core_token.go)
	identity *coreauth.Identity // what Core proves itself to its clients with (runtime/coreauth)

	// The console (runtime/console, mounted in console.go): what wakes
	// its feeds, the approver token its page carries (approver_token.go),
	// and the approvals it shows: nil until runtime/approvals' book is set
	// here.
	console          console.Signal
	history          *console.History // ended sessions the console lists, across restarts (recover.go opens it)
	approver         string
	consoleApprovals func() wire.ApprovalsState
	book             *approvals.Book  // origin grants and requests waiting for the user (approvals.go)
	guard            *approvals.Guard // who may read and make decisions
}

// NewCore makes a Core; Serve (server.go) puts it on the network.
func NewCore(opts Options) (*Core, error) {
	opts.setDefaults()
	public, err := ParsePublicURL(opts.PublicURL)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidInput, "%v", err)
	}
	if opts.StateDir == "" {
		return nil, wire.Errorf(wire.CodeInvalidInput, "state dir is required")
	}
	if err := prepareStateDir(opts.StateDir); err != nil {
		return nil, err
	}
	c := &Core{opts: opts, publicURL: public, log: opts.Logger, refusals: refusals.New(opts.Logger, opts.Limits.RefusalLogWindow),
		token: ids.New("pt_"), approver: newApproverToken()}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	identity, err := coreauth.LoadOrCreate(opts.StateDir)
	if err != nil {
		return nil, err
	}
	c.identity = identity
	c.peers = peercred.New(peercred.Options{UID: os.Getuid(), AllowOtherUsers: opts.AllowOtherUsers, OnRefused: c.notePeerRefused})
	c.transfers = assets.NewTransfers(assetHost{c}, fieldlog.New(c.log), opts.AssetTicketTTL)
	c.mcp = &mcpserver.Server{Version: opts.Version, MaxMessageBytes: opts.MaxMessageBytes, ReadTimeout: opts.Limits.ReadTimeout,
		Log: c.log, Refusals: c.refusals, Guard: c.mcpGuard}
	c.mcp.Start(c.ctx)
	if err := c.recover(); err != nil {
		return nil, err
	}
	c.mcp.Sessions = c.sessions
	c.pages = &page.Server{Sessions: c.sessions, Book: c.book, Transfers: c.transfers, Providers: opts.Providers, Log: c.log,
		MaxMessageBytes: opts.MaxMessageBytes, SessionlessTimeout: opts.Limits.SessionlessTimeout, PingInterval: opts.Limits.PingInterval,
		URL: c.baseFor, OriginAllowed: c.originAllowed, RefuseOrigin: c.refuseOrigin, Prove: c.identity.Prove}
	c.agents = &agentserver.Server{Sessions: c.sessions, MaxMessageBytes: opts.MaxMessageBytes, ReadTimeout: opts.Limits.ReadTimeout}
	return c, nil
}

// newSessions makes the session domain on the state database's writer
// and the Book (recover.go calls it once both are open).
func (c *Core) newSessions(w *persist.Writer) {
	o := c.opts
	c.sessions = session.NewTable(session.Config{
		StateDir: o.StateDir, Executable: o.Executable, CoreKey: c.identity.Key(),
		ToolTimeout: o.ToolTimeout, TurnTimeout: o.TurnTimeout, ResumeWindow: o.ResumeWindow,
		EventLogSize: o.EventLogSize, MaxPendingCalls: o.MaxPendingCalls, MaxArgsBytes: o.MaxArgsBytes,
		MaxInlineResultBytes: o.MaxInlineResultBytes, Limits: o.Limits,
		Providers: o.Providers, Logger: c.log, Host: sessionHost{c},
		Persist: w, Book: c.book, Console: &c.console, Refusals: c.refusals,
		Retired: func(v wire.ConsoleSession) { c.history.Add(v); c.console.Bump() },
	})
}

// sessionHost is Core as a session sees it (session.Host).
type sessionHost struct{ c *Core }

func (h sessionHost) URL() string                       { return h.c.coreURL }
func (h sessionHost) SessionChanged(s *session.Session) { h.c.mcp.SessionChanged(s) }
func (h sessionHost) ToolsChanged(s *session.Session)   { h.c.mcp.ToolsChanged(s) }

// Shutdown stops Core without ending its sessions (session.Table.Shutdown):
// once no session or turn can start, Core's context ends (MCP event
// streams and long-polls end, the console's feeds stop), running turns
// are cut off and every session's record is written, so the next `pedelec
// serve` on the same state directory gives each page its session back.
// Work directories stay for those sessions. It waits for the turns to
// finish, or for ctx.
func (c *Core) Shutdown(ctx context.Context) {
	c.sessions.Shutdown(ctx, c.cancel)
}

// SessionCount is the number of live (not ended) sessions.
func (c *Core) SessionCount() int { return c.sessions.LiveCount() }

// session finds a live or recently ended session.
func (c *Core) session(id string) (*session.Session, error) { return c.sessions.Get(id) }

// WorkDir is the path of a session's work directory under stateDir.
func WorkDir(stateDir, sessionID string) string { return session.WorkDir(stateDir, sessionID) }

// AgentThreadID is the id a session's agent knows it by, for tests that
// act as a session's agent.
func AgentThreadID(sessionID string) string { return session.AgentThreadID(sessionID) }
