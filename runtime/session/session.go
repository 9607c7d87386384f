package session

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/fieldlog"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// Session is one page's conversation with one provider. Its fields after mu
// change only under mu; methods that need mu held end in Locked. The lock
// order is written above Table.
type Session struct {
	table     *Table
	id        string
	secret    string // given only to the session's provider processes
	origin    string // the page origin that created it
	provider  provider.Provider
	model     string
	createdAt time.Time
	ordinal   int // an external session's number among them (Table.External); 0 otherwise
	// toolset is the session's tools and guidance: swapped whole when the
	// page sends update_tools (tools.go), read without s.mu.
	toolset atomic.Pointer[toolSet]
	autoEnd bool
	// disconnectGrace: how long an autoEnd session waits for a page to
	// resume it before it ends (0: it ends at once). Set at creation.
	disconnectGrace time.Duration
	dirs            workDirs
	log             fieldlog.Log

	mu             sync.Mutex
	status         wire.Status
	seq            int64
	page           Page // the attached page; nil while detached
	turn           *turnState
	primed         bool     // the first prompt (rules, guidance, index) was delivered
	toldTools      []string // the tool names the agent was last told of (tools.go)
	providerThread string   // the provider's id for resuming
	lastTurnFailed bool
	calls          pendingCalls // the broker's state (broker.go)
	consent        consentWaits // calls waiting for the user's consent (consent.go)
	handoffs       handoffs     // calls handed over to `tool-call --wait` (handoff.go)
	ended          bool
	frozen         bool        // Core stopped recording: nothing more is saved, logged or sent (Shutdown)
	detachTimer    *time.Timer // ends the session if no page resumes it in time
	events         eventLog    // recent events, for a page that resumes
	providerState  json.RawMessage
	// restoredActive is when a session a restarted Core restored was last
	// written (zero for a new one); set before it is indexed, read only.
	restoredActive time.Time
	notes          console.Notes        // what the console shows that the events lack (runtime/console)
	consoleFinal   *wire.ConsoleSession // a retired session's last console view (ended.go)
}

type turnState struct {
	id        string
	startedAt time.Time
	warmup    bool
	cancel    context.CancelFunc
	done      chan struct{}
}

// Create validates the request, checks the provider and starts a
// session attached to page connection pc.
func (c *Table) Create(ctx context.Context, pc Page, p wire.CreateSessionParams) (*Session, error) {
	if len(p.Skills) == 0 || string(p.Skills) == "null" {
		return nil, schema.InvalidInput([]schema.Problem{{Path: "skills", Message: "skills is required: pass {guidance, tools}"}})
	}
	if err := c.cfg.Limits.CheckSkillLimits(p.Skills); err != nil {
		return nil, err
	}
	skills, problems := schema.ValidateSkills(p.Skills)
	if len(problems) > 0 {
		return nil, schema.InvalidInput(problems)
	}
	name := p.Provider
	if name == "" {
		name = c.cfg.Providers.Default(ctx)
		if name == "" {
			return nil, wire.Errorf(wire.CodeDefaultProviderNotSet, "no provider named and Core has no default provider: pass one (see list_providers) or set default_provider in Core's config file")
		}
	}
	prov, ok := c.cfg.Providers.Get(name)
	if !ok {
		return nil, wire.Errorf(wire.CodeProviderNotFound, "no provider %q; known providers: %v", name, c.cfg.Providers.Names()).
			WithDetails(map[string]any{"provider": name, "known": c.cfg.Providers.Names()})
	}
	info := prov.Check(ctx)
	// No model at all is MODEL_REQUIRED before whether the provider runs,
	// as the original reports Ollama without a model (issue 23).
	if nm, ok := prov.(interface{ NeedsModel() bool }); ok && p.Model == "" && info.DefaultModel == "" && nm.NeedsModel() {
		return nil, wire.Errorf(wire.CodeModelRequired,
			"provider %q needs a model: pass createSession({model}) or set default_model under [providers.%s] in the config file", name, name).
			WithDetails(map[string]any{"provider": name, "models": info.Models})
	}
	if !info.Available {
		code, which := wire.CodeProviderUnavailable, "provider"
		if info.UnavailableCode != "" {
			code = info.UnavailableCode // the original SDK's own (ollama's)
		}
		if p.Provider == "" {
			code, which = wire.CodeDefaultProviderUnavailable, "Core's default provider"
		}
		return nil, wire.Errorf(code, "%s %q is not available: %s", which, name, info.Reason).
			WithDetails(map[string]any{"provider": name, "reason": info.Reason})
	}
	model := p.Model
	if model == "" {
		model = info.DefaultModel
	}
	if nm, ok := prov.(interface{ NeedsModel() bool }); ok && model == "" && nm.NeedsModel() {
		return nil, wire.Errorf(wire.CodeModelRequired,
			"provider %q needs a model: pass createSession({model}) or set default_model under [providers.%s] in the config file", name, name).
			WithDetails(map[string]any{"provider": name, "models": info.Models})
	}
	tools, err := schema.NewRegistry(skills)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidInput, "compile tool schemas: %w", err)
	}
	autoEnd := true
	if p.AutoEndOnDisconnect != nil {
		autoEnd = *p.AutoEndOnDisconnect
	}
	grace, err := disconnectGrace(p.DisconnectGraceMs, autoEnd)
	if err != nil {
		return nil, err
	}

	s := &Session{
		table: c, secret: ids.New("k_"), origin: pc.Origin(),
		provider: prov, model: model, createdAt: time.Now(),
		autoEnd: autoEnd, disconnectGrace: grace,
		status: wire.StatusIdle, page: pc,
		events: c.newEventLog(),
		primed: provider.IsExternal(prov), // nothing to warm up: prepare() is done at once
	}
	s.toolset.Store(&toolSet{skills: skills, reg: tools})
	c.mu.Lock()
	err = c.addSessionLocked(s, p.Skills)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(p.Skills) >= largeManifest {
		c.memory.after(manifestReleaseDelay)
	}
	c.host.SessionChanged(s)
	s.log.Info("session created", "provider", name, "model", model, "tools", len(skills.Tools), "origin", pc.Origin())
	s.startAgentEarly(time.Now())
	return s, nil
}

// addSessionLocked gives s its id and work directory and makes it one of
// Core's sessions, attached to its page, unless Core is stopping or at a
// limit. The limits are checked under c.mu so that concurrent creates
// cannot pass them together.
func (c *Table) addSessionLocked(s *Session, rawSkills json.RawMessage) error {
	if c.isClosing() {
		return wire.Errorf(wire.CodeCoreShuttingDown, "Core is shutting down; try again once it is back")
	}
	if err := c.checkConnectionLimit(s.page); err != nil {
		return err
	}
	if err := c.checkSessionLimitLocked(); err != nil {
		return err
	}
	s.id = ids.New("s_")
	s.log = fieldlog.New(c.log, "session", s.id)
	dirs, err := makeWorkDirs(c.cfg.StateDir, s.id, c.cfg.Executable)
	if err != nil {
		return wire.Errorf(wire.CodeInternal, "create session work directory: %w", err)
	}
	s.dirs = dirs
	c.indexSessionLocked(s)
	s.page.Attach(s)
	s.mu.Lock()
	// The tools go to the database once, with the first record, and are
	// not kept here as text: the parsed registry is what calls use.
	rec := s.recordLocked()
	rec.Skills = rawSkills
	c.persist.Put(persist.Op{Put: rec})
	s.mu.Unlock()
	return nil
}

// Info is the session's SessionInfo.
func (s *Session) Info() *wire.SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.infoLocked()
}

func (s *Session) infoLocked() *wire.SessionInfo {
	return &wire.SessionInfo{
		SessionID: s.id, Provider: s.provider.Name(), Model: s.model, Status: s.status,
		Seq: s.seq, Tools: s.tools().Names(), AutoEndOnDisconnect: s.autoEnd,
		DisconnectGraceMs: s.disconnectGrace.Milliseconds(),
	}
}

func (s *Session) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// emitLocked sends one event to the attached page, giving it the next seq.
// While detached the seq still advances, so a resumed page never sees an
// old number again.
func (s *Session) emitLocked(event, turnID string, data any) {
	s.emitWithArgsLocked(event, turnID, data, nil)
}

// emitToolCallLocked sends call's tool_call event. Its args are the
// agent's bytes, checked by callTool, and go to the page as they are: not
// scanned and re-encoded again (docs/protocol.md, "A call's JSON").
func (s *Session) emitToolCallLocked(call *pendingCall, redelivered bool) {
	s.emitWithArgsLocked(wire.EventToolCall, call.turnID, call.eventData(redelivered), call.args)
	call.eventSeq = s.seq
}

// emitWithArgsLocked is emitLocked with args, when not nil, written in as
// they are as the last member of data (wire.MarshalRaw).
func (s *Session) emitWithArgsLocked(event, turnID string, data any, args json.RawMessage) {
	s.seq++
	e := wire.Event{Type: wire.FrameEvent, Event: event, SessionID: s.id, Seq: s.seq, TurnID: turnID, Data: data}
	var frame []byte
	var err error
	if args == nil {
		frame, err = json.Marshal(e)
	} else {
		frame, err = wire.MarshalRaw(e, "args", args)
	}
	if err != nil {
		s.log.Error("encode event", "event", event, "err", err)
		return
	}
	s.logEventLocked(frame)
}

// refreshStatusLocked derives the status from the session's facts and, when
// it changed, moves along the state machine and tells the page, with the
// running turn's id. It is the only place a status changes.
func (s *Session) refreshStatusLocked() {
	turnID := ""
	if s.turn != nil {
		turnID = s.turn.id
	}
	s.refreshStatusForTurnLocked(turnID)
}

// refreshStatusForTurnLocked is refreshStatusLocked for the status change
// that reports turnID's end, when s.turn is already cleared.
func (s *Session) refreshStatusForTurnLocked(turnID string) {
	want := wire.StatusIdle
	switch {
	case s.ended:
		want = wire.StatusEnded
	case (s.turn != nil || s.isExternal()) && len(s.consent) > 0:
		// The user has something to decide: that is what the page and
		// the agent most need to see, even while other calls run.
		want = wire.StatusWaitingApproval
	case (s.turn != nil || s.isExternal()) && s.calls.len() > 0:
		want = wire.StatusWaitingToolResult
	case s.turn != nil:
		want = wire.StatusRunning
	case s.lastTurnFailed:
		want = wire.StatusError
	}
	if want == s.status {
		return
	}
	if err := checkTransition(s.status, want); err != nil {
		s.log.Error("refused status change", "err", err)
		return
	}
	prev := s.status
	s.status = want
	defer s.saveLocked()
	s.log.Debug("status", "change", prev+" -> "+want)
	data := wire.StatusChangedData{Status: want, PreviousStatus: prev}
	switch want {
	case wire.StatusWaitingToolResult:
		data.WaitingOn = s.calls.waitingOn()
	case wire.StatusWaitingApproval:
		data.WaitingOn = s.consent.waitingOn()
	}
	s.emitLocked(wire.EventStatusChanged, turnID, data)
}

// maxSeqAhead bounds how far past the session's last event a resuming
// page's lastSeq may be. A page can have seen events a crashed Core never
// wrote down (those of its last moments), never a million of them; past
// that the number is the page's invention, and adopting it could make the
// next event's seq wrap negative.
const maxSeqAhead = 1 << 20

// Resume attaches page connection pc. With lastSeq (a page that followed
// the session and lost its connection) the events after lastSeq are sent
// again from the log, exactly as they were; without it (a reloaded page)
// the pending calls are delivered again as new events. With both (redeliver:
// the next page of a session that follows the page) the replay comes
// first, then the pending calls the replay does not hold, since the page
// that was given them is gone. Either way the
// attaching happens in the returned function, after the response is
// queued, so the page knows the session before its events arrive and no
// event is emitted between the two.
func (s *Session) Resume(pc Page, lastSeq *int64, redeliver bool) (*wire.SessionInfo, func(), error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, nil, wire.Errorf(wire.CodeSessionEnded, "session %q has ended", s.id)
	}
	// Refused before anything changes: a refusal after the page was let go
	// and the resume window's timer stopped left a session no page held
	// and nothing would end.
	if lastSeq != nil && *lastSeq > s.seq+maxSeqAhead {
		s.mu.Unlock()
		return nil, nil, wire.Errorf(wire.CodeInvalidInput, "params.lastSeq %d is %d past the session's last event %d (at most %d)", *lastSeq, *lastSeq-s.seq, s.seq, maxSeqAhead).
			WithDetails(map[string]any{"lastSeq": *lastSeq, "seq": s.seq})
	}
	if s.page != pc {
		if err := s.table.checkConnectionLimit(pc); err != nil {
			s.mu.Unlock()
			return nil, nil, err
		}
	}
	if old := s.page; old != nil && old != pc {
		old.Detach(s)
		s.page = nil
	}
	if s.detachTimer != nil {
		s.detachTimer.Stop()
		s.detachTimer = nil
	}
	from := s.seq
	if lastSeq != nil {
		if *lastSeq > s.seq {
			// The page saw events a crashed Core never wrote down: go on
			// after them, so no seq is used twice.
			s.seq = *lastSeq
		}
		from = max(*lastSeq, 0)
	}
	info := s.infoLocked()
	info.Seq = from
	pending := s.calls.len()
	s.mu.Unlock()
	pc.Attach(s)
	attach := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.ended {
			return
		}
		s.replayLocked(pc, from)
		for _, call := range s.calls.inOrder() {
			if lastSeq == nil || (redeliver && call.eventSeq <= from) {
				s.emitToolCallLocked(call, true)
			}
		}
		s.saveLocked()
	}
	then := func() {
		attach()
		if pc.Closed() {
			s.Detached(pc) // the page left before it was attached
			return
		}
		s.startAgentEarly(time.Now())
	}
	s.log.Info("session resumed", "pending", pending, "lastSeq", from)
	return info, then, nil
}

// Detached is called when the page connection closes: the session ends with
// autoEndOnDisconnect, else it waits for a page to resume it.
func (s *Session) Detached(pc Page) {
	s.mu.Lock()
	if s.page != pc {
		s.mu.Unlock()
		return
	}
	s.page = nil
	if s.table.isClosing() {
		// Core is stopping, not the page going away: the session stays
		// for the page to resume after the restart.
		s.mu.Unlock()
		return
	}
	s.saveLocked()
	autoEnd := s.autoEnd && s.disconnectGrace == 0
	if !autoEnd {
		// A following page's session (autoEnd with a grace) is waited for
		// briefly: a navigation comes back within it, a closed tab does
		// not, and ends it as a disconnect.
		window, reason := s.table.cfg.ResumeWindow, wire.EndReasonResumeWindowExpired
		if s.autoEnd {
			window, reason = s.disconnectGrace, wire.EndReasonDisconnect
		}
		s.detachTimer = time.AfterFunc(window, func() {
			s.mu.Lock()
			stillDetached := s.page == nil
			s.mu.Unlock()
			if stillDetached {
				s.End(wire.EndedData{Reason: reason})
			}
		})
		s.mu.Unlock()
		s.log.Info("page disconnected; session kept for resume", "window", window)
		return
	}
	s.mu.Unlock()
	s.End(wire.EndedData{Reason: wire.EndReasonDisconnect})
}

// MaxDisconnectGrace bounds create_session's disconnectGraceMs: long
// enough for a slow page to load, short enough that a closed tab's agent
// stops soon.
const MaxDisconnectGrace = 2 * time.Minute

// disconnectGrace checks create_session's disconnectGraceMs.
func disconnectGrace(ms int64, autoEnd bool) (time.Duration, error) {
	switch {
	case ms == 0:
		return 0, nil
	case ms < 0 || ms > MaxDisconnectGrace.Milliseconds():
		return 0, wire.Errorf(wire.CodeInvalidInput, "params.disconnectGraceMs must be between 1 and %d (milliseconds)", MaxDisconnectGrace.Milliseconds()).
			WithDetails(map[string]any{"problems": []map[string]string{{"path": "disconnectGraceMs", "message": "out of range"}}})
	case !autoEnd:
		return 0, wire.Errorf(wire.CodeInvalidInput, "params.disconnectGraceMs applies to autoEndOnDisconnect sessions; a session with autoEndOnDisconnect false waits for the resume window").
			WithDetails(map[string]any{"problems": []map[string]string{{"path": "disconnectGraceMs", "message": "needs autoEndOnDisconnect"}}})
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// End ends the session: pending calls fail with SESSION_ENDED, the running
// turn is cancelled (its provider process group killed), the page is told,
// and the work directory is removed once the turn has stopped.
func (s *Session) End(why wire.EndedData) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	if s.detachTimer != nil {
		s.detachTimer.Stop()
		s.detachTimer = nil
	}
	endedErr := wire.Errorf(wire.CodeSessionEnded, "session %s ended (%s)", s.id, why.Reason)
	s.failPendingLocked(endedErr, wire.OutcomeSessionEnded)
	s.handoffs.forgetLocked()
	turn := s.turn
	if turn != nil {
		turn.cancel()
	}
	s.refreshStatusLocked()
	if turn != nil {
		s.emitLocked(wire.EventDone, turn.id, wire.DoneData{OK: false, Prepare: turn.warmup, Error: endedErr})
	}
	s.emitLocked(wire.EventEnded, "", why)
	// Ended for good: gone from the state database before anything else,
	// so a restart cannot bring it back. The work directory follows once
	// the turn stopped (or at the next start-up, after a crash).
	s.table.persist.Put(persist.Op{Delete: s.id})
	pc := s.page
	s.mu.Unlock()
	if pc != nil {
		pc.Detach(s)
	}
	s.log.Info("session ended", "reason", why.Reason)
	s.table.host.SessionChanged(s)
	go func() {
		// A warm agent (ACP) dies with its session, before its turn is
		// waited for: the turn then ends at once.
		s.closeProviderSession()
		if turn != nil {
			<-turn.done
			// Again: a turn that was starting its agent when the
			// session ended leaves it warm only until here.
			s.closeProviderSession()
		}
		s.removeWorkDir()
		// In-process providers (openai) keep the conversation in memory.
		if f, ok := s.provider.(provider.SessionForgetter); ok {
			f.Forget(s.id)
		}
	}()
	s.table.retire(s)
}

func (s *Session) removeWorkDir() {
	if err := RemoveTree(s.dirs.root); err != nil {
		s.log.Warn("remove work directory", "dir", s.dirs.root, "err", err)
	}
}
