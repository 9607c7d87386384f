// Package session is Core's session domain: sessions and their status
// state machine, turns, the event log and the records that make a session
// durable, the tool set a page declares, the tool-call broker with its
// consent step, how a page's answer is judged, result files, progress and
// calls handed over to `tool-call --wait`. It speaks no HTTP and no
// WebSocket: Core's transports (runtime/page, runtime/agentserver,
// runtime/mcpserver) reach it through the methods of Table and Session,
// and it reaches them only through the two interfaces it declares: Page
// (a session's page connection) and Host (what it needs of Core).
package session

import (
	"cmp"
	"context"
	"crypto/subtle"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/refusals"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Page is what a session needs of the page connection it is attached to.
// Every method returns at once: a session calls them under its own lock.
type Page interface {
	// Origin is the page's origin, which owns the sessions it creates.
	Origin() string
	// Send queues one encoded frame for the page, never blocking.
	Send(frame []byte)
	// SendReplay queues the replay of logged events behind what is queued.
	SendReplay(r *Replay)
	// Attach and Detach keep the connection's own list of its sessions.
	Attach(s *Session)
	Detach(s *Session)
	// SessionCount is the number of sessions attached to the connection.
	SessionCount() int
	// Closed reports whether the connection has closed.
	Closed() bool
}

// Host is what a session needs of Core: where Core listens (what provider
// processes dial back to), and telling Core's MCP surfaces that a session
// started or ended, or that its tools changed. URL takes no lock and may
// be called under any; a session calls the others without holding its own.
type Host interface {
	URL() string
	SessionChanged(s *Session)
	ToolsChanged(s *Session)
}

// Config is what the session domain is given by Core. Zero values are not
// defaulted here: Core's Options did that.
type Config struct {
	StateDir   string // holds each session's work directory
	Executable string // the pedelec binary provider processes run
	// CoreKey is Core's public key (runtime/coreauth), in every provider
	// process's environment: what the agent's commands check Core by.
	CoreKey string

	ToolTimeout          time.Duration
	TurnTimeout          time.Duration
	ResumeWindow         time.Duration
	EventLogSize         int
	MaxPendingCalls      int
	MaxArgsBytes         int
	MaxInlineResultBytes int
	Limits               Limits

	Providers *provider.Registry
	Logger    *log.Logger
	Host      Host
	Persist   *persist.Writer // the state database's writer
	Book      *approvals.Book // origin grants and calls waiting for consent
	Console   *console.Signal // what wakes the console's feeds
	Refusals  *refusals.Log   // refused agent credentials
	// Retired is told an ended session's last console view once Core
	// retires it (the console's history); called without any lock held.
	Retired func(view wire.ConsoleSession)
}

// Table is Core's sessions, by id and by the thread id their agent knows.
//
// Locks. This package's mutexes have one order; a goroutine holding one
// may take only those after it:
//
//	Table.mu → Session.mu → callprogress.Box.mu, console.Signal.mu, persist.Writer.mu, approvals.Book.mu
//	memoryReleaser.mu and assetReservations.mu are leaves
//
// Under Session.mu a session calls only its Page (whose methods take the
// connection's own leaf lock and return at once), never its Host, never a
// provider (a provider may hold its own lock while it calls emit, which
// takes Session.mu), and never Table.mu: code that ends, retires or
// detaches a session takes each lock in turn. Issue 20: a session asked
// Core whether it was closing under Session.mu while Core held its lock
// and waited for that Session.mu, and Core hung; closing is atomic now,
// read under any lock, and churn_test.go keeps the hang from coming back.
type Table struct {
	cfg     Config
	log     *log.Logger
	host    Host
	persist *persist.Writer
	book    *approvals.Book
	console *console.Signal
	memory  memoryReleaser // hands memory back after ended sessions and large manifests (memory_release.go)
	// eventBytes is the bytes of every session's event log (eventlog.go);
	// reclaiming: a reclaimEventBytes is under way.
	eventBytes byteTotal
	reclaiming atomic.Bool
	// assetsReserved: asset writes under way (asset_quota.go; its mu is a leaf).
	assetsReserved assetReservations

	mu       sync.Mutex
	sessions map[string]*Session
	threads  map[string]string // AgentThreadID → session id, for the agent endpoint
	ordinals int               // external sessions numbered so far (Session.Ordinal)
	// closing is set once, under mu, by Shutdown; read anywhere, with or
	// without mu: sessions ask under their own lock.
	closing atomic.Bool
	turns   sync.WaitGroup // running turn goroutines
}

// NewTable makes an empty table; Restore brings back what a previous Core left.
func NewTable(cfg Config) *Table {
	if cfg.Console == nil {
		cfg.Console = &console.Signal{}
	}
	t := &Table{cfg: cfg, log: cfg.Logger, host: cfg.Host, persist: cfg.Persist, book: cfg.Book, console: cfg.Console,
		sessions: map[string]*Session{}, threads: map[string]string{}}
	t.eventBytes.max = cfg.Limits.EventLogTotalBytes
	t.eventBytes.reclaim = t.reclaimEventBytes
	return t
}

// newEventLog is a session's event log under the table's bounds.
func (t *Table) newEventLog() eventLog {
	return eventLog{max: t.cfg.EventLogSize, maxBytes: t.cfg.Limits.EventLogBytes, total: &t.eventBytes}
}

// Config is the table's configuration.
func (t *Table) Config() Config { return t.cfg }

// Closing reports whether Core is stopping. It takes no lock, so a
// session may ask under its own.
func (t *Table) Closing() bool { return t.isClosing() }

func (t *Table) isClosing() bool { return t.closing.Load() }

// Sync waits until what was journaled so far is on disk: a page's
// connection calls it before it writes, so what a page sees survives a
// crash.
func (t *Table) Sync() { t.persist.Sync() }

// indexSessionLocked makes s findable by its id and its agent's thread id.
func (t *Table) indexSessionLocked(s *Session) {
	if s.isExternal() && s.ordinal == 0 {
		// Numbered before any snapshot can list it; the number names the
		// session's tool prefix on /mcp and never changes.
		t.ordinals++
		s.ordinal = t.ordinals
	}
	t.sessions[s.id] = s
	t.threads[AgentThreadID(s.id)] = s.id
	t.console.Bump()
}

// ForAgent finds a session by the id its agent was given (AgentThreadID)
// or by the session id itself, which agents of sessions created before
// thread ids existed still hold.
func (t *Table) ForAgent(threadID string) (*Session, error) {
	t.mu.Lock()
	if id, ok := t.threads[threadID]; ok {
		threadID = id
	}
	t.mu.Unlock()
	return t.Get(threadID)
}

// AgentSession finds the session threadID names and checks that secret
// is its agent's. An unknown session and a wrong secret get the same
// answer (THREAD_ACCESS_DENIED), and take the same time, so a caller
// without the secret cannot even learn whether an id exists.
func (t *Table) AgentSession(threadID, secret string, hasSecret bool) (*Session, error) {
	if threadID == "" {
		return nil, wire.Errorf(wire.CodeInvalidInput, "threadId is required")
	}
	s, _ := t.ForAgent(threadID)
	want := unknownSessionSecret()
	if s != nil {
		want = s.secret
	}
	if !hasSecret || subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 || s == nil {
		if t.cfg.Refusals != nil {
			t.cfg.Refusals.Note("agent-secret", "", "refused agent requests: unknown session or wrong secret", "session", threadID,
				"hint", "only the session's own agent, which Core gives "+wire.EnvSecret+", may call its tools")
		}
		return nil, wire.Errorf(wire.CodeThreadAccessDenied,
			"no session %s with this secret; only a session's own agent (with %s from Core, sent as \"Authorization: Bearer <secret>\") may call its tools", threadID, wire.EnvSecret).
			WithDetails(map[string]any{"sessionId": threadID})
	}
	if s.isEnded() {
		return nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended (the page closed it or went away): its tools cannot be called any more; stop calling them and tell the user", threadID)
	}
	return s, nil
}

// unknownSessionSecret is compared against when no session has the id, so
// both refusals take the same time. Made on first use.
var unknownSessionSecret = sync.OnceValue(func() string { return ids.New("k_") })

// Get finds a live or recently ended session.
func (t *Table) Get(id string) (*Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return nil, wire.Errorf(wire.CodeThreadNotFound, "no session %q in this Core", id).WithDetails(map[string]any{"sessionId": id})
	}
	return s, nil
}

// Has reports whether id is one of the table's sessions.
func (t *Table) Has(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.sessions[id]
	return ok
}

// ForOrigin finds a session and checks that origin owns it.
func (t *Table) ForOrigin(id, origin string) (*Session, error) {
	s, err := t.Get(id)
	if err != nil {
		return nil, err
	}
	if s.origin != origin {
		return nil, wire.Errorf(wire.CodeThreadAccessDenied, "session %q belongs to another origin", id).
			WithDetails(map[string]any{"sessionId": id, "origin": origin})
	}
	return s, nil
}

// All is every session the table holds, ended ones included until
// forgotten, oldest first.
func (t *Table) All() []*Session {
	t.mu.Lock()
	all := make([]*Session, 0, len(t.sessions))
	for _, s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	slices.SortFunc(all, func(a, b *Session) int {
		return cmp.Or(a.createdAt.Compare(b.createdAt), cmp.Compare(a.id, b.id))
	})
	return all
}

// External is the live sessions whose agent is an MCP client outside
// Core, in the order they were numbered (Session.Ordinal).
func (t *Table) External() []*Session {
	t.mu.Lock()
	live := make([]*Session, 0, len(t.sessions))
	for _, s := range t.sessions {
		if s.isExternal() {
			live = append(live, s)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(live, func(a, b *Session) int { return cmp.Compare(a.ordinal, b.ordinal) })
	return slices.DeleteFunc(live, (*Session).isEnded)
}

// forget drops an ended session's record after a while; until then later
// requests for it get SESSION_ENDED rather than THREAD_NOT_FOUND.
func (t *Table) forget(id string, after time.Duration) {
	time.AfterFunc(after, func() { t.Forget(id) })
}

// EndOrigin ends every live session of a revoked origin and says how many.
func (t *Table) EndOrigin(origin string) int {
	t.mu.Lock()
	var mine []*Session
	for _, s := range t.sessions {
		if o, err := approvals.NormalizeOrigin(s.origin); err == nil && o == origin {
			mine = append(mine, s)
		}
	}
	t.mu.Unlock()
	for _, s := range mine {
		s.End(wire.EndedData{Reason: wire.EndReasonOriginRevoked})
	}
	return len(mine)
}

// Shutdown stops the sessions without ending them: no session or turn
// starts from now on; stopTransports runs then (Core's MCP streams and
// long-polls end); running turns are cut off (their provider process
// groups killed, their pending calls failed with TURN_INTERRUPTED, the
// session left in error), warm agents stop, every session's record is
// written, and the state database is closed, so the next Core on the
// same state directory gives each page its session back. It waits for
// the turns to finish, or for ctx.
func (t *Table) Shutdown(ctx context.Context, stopTransports func()) {
	// Under mu, so no session is created after the list below is taken.
	t.mu.Lock()
	t.closing.Store(true)
	all := make([]*Session, 0, len(t.sessions))
	for _, s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	if stopTransports != nil {
		stopTransports()
	}
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
	go func() { t.turns.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.log.Warn("shutdown: turns still running at the deadline")
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
	t.persist.Close()
}

// LiveCount is the number of live (not ended) sessions.
func (t *Table) LiveCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, s := range t.sessions {
		if !s.isEnded() {
			n++
		}
	}
	return n
}

// Counts are what the table holds, for Core's debug endpoint.
type Counts struct {
	Sessions, Live, Attached, RunningTurns, PendingCalls, LoggedEvents int
	IDs                                                                map[string]bool
}

// Counts takes the numbers of Counts.
func (t *Table) Counts() Counts {
	all := t.All()
	n := Counts{Sessions: len(all), IDs: make(map[string]bool, len(all))}
	for _, s := range all {
		n.IDs[s.id] = true
		s.mu.Lock()
		if !s.ended {
			n.Live++
		}
		if s.page != nil {
			n.Attached++
		}
		if s.turn != nil {
			n.RunningTurns++
		}
		n.PendingCalls += s.calls.len()
		n.LoggedEvents += s.events.len()
		s.mu.Unlock()
	}
	return n
}

// Forget drops id's record at once, as forget does an ended session's
// once endedWindow has passed.
func (t *Table) Forget(id string) {
	t.mu.Lock()
	delete(t.sessions, id)
	delete(t.threads, AgentThreadID(id))
	t.mu.Unlock()
	t.console.Bump()
	t.book.EndSession(id) // its "allow for this session" choices go with it
}
