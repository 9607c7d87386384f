package session

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/fieldlog"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// recordLocked is what the state database keeps of the session.
func (s *Session) recordLocked() *persist.Record {
	r := &persist.Record{
		ID: s.id, Origin: s.origin, Provider: s.provider.Name(), Model: s.model,
		AutoEndOnDisconnect: s.autoEnd, DisconnectGraceMs: s.disconnectGrace.Milliseconds(), Status: string(s.status), Seq: s.seq, Primed: s.primed,
		ProviderThread: s.providerThread, LastTurnFailed: s.lastTurnFailed,
		CreatedAt: s.createdAt.UnixMilli(), UpdatedAt: time.Now().UnixMilli(),
	}
	if s.turn != nil {
		r.Turn = &persist.TurnRecord{ID: s.turn.id, StartedAt: s.turn.startedAt.UnixMilli(), Warmup: s.turn.warmup}
	}
	// Every pending call, a turn's or an MCP client's (which has no turn):
	// the page saw its tool_call, so a restart must settle it.
	for _, call := range s.calls.inOrder() {
		r.Pending = append(r.Pending, persist.PendingRecord{ID: call.id, Tool: call.tool, TurnID: call.turnID})
	}
	r.ProviderState = s.providerState
	return r
}

// exportProviderState takes an in-process provider's conversation, for the
// record. It runs without s.mu: the provider's lock is taken inside emit.
func (s *Session) exportProviderState() json.RawMessage {
	if st, ok := s.provider.(provider.SessionState); ok {
		return st.ExportSession(s.id)
	}
	return nil
}

// saveLocked queues the session's record for the state database (its
// tools were written once, with the first record). Ended sessions are not
// saved: End removes them once cleaned up.
func (s *Session) saveLocked() {
	if s.ended || s.frozen {
		return
	}
	s.table.persist.Put(persist.Op{Put: s.recordLocked()})
}

// logEventLocked keeps one event in the bounded log, in memory and (soon,
// see persist.Writer) on disk, and sends it to the attached page.
func (s *Session) logEventLocked(frame []byte) {
	if s.frozen {
		return
	}
	ev := persist.Event{Seq: s.seq, Frame: frame}
	defer s.table.console.Bump()
	trim := s.events.add(ev)
	// A page never sees an event that is not in the journal: one emitted
	// while Core stops (a turn still ending after the shutdown deadline)
	// stays unsent, and the restarted Core reports that turn's end itself.
	// Sent, it would carry a seq the restarted Core hands out again, and
	// the page would drop the real end of the turn as seen already.
	if s.table.persist.Put(persist.Op{SessionID: s.id, Events: []persist.Event{ev}, TrimBelow: trim}) && s.page != nil {
		s.page.Send(frame)
	}
}

// replayLocked attaches pc and sends it every logged event after lastSeq:
// as one replay entry that pc's writer reads from the log as the socket
// takes it (replay.go), however many events were missed. Events
// emitted from now on queue behind it.
func (s *Session) replayLocked(pc Page, lastSeq int64) {
	s.page = pc
	if lastSeq < s.seq {
		pc.SendReplay(&Replay{s: s, page: pc, next: lastSeq, upTo: s.seq})
	}
}

// interruptLocked ends the running turn because Core is stopping (or was
// stopped): its pending calls fail with TURN_INTERRUPTED, and the session
// is left in error with that reason, for the page to send its message again.
func (s *Session) interruptLocked(turnID string, warmup bool, reason string) {
	err := wire.Errorf(wire.CodeTurnInterrupted, "the turn was cut off because Core %s; send the message again (the agent resumes its thread)", reason).
		WithDetails(map[string]any{"turnId": turnID, "reason": reason})
	s.failPendingLocked(err, wire.OutcomeInterrupted)
	s.turn = nil
	s.lastTurnFailed = true
	s.refreshStatusForTurnLocked(turnID)
	s.emitLocked(wire.EventError, turnID, wire.ErrorData{Error: err})
	s.emitLocked(wire.EventDone, turnID, wire.DoneData{OK: false, Prepare: warmup, Error: err})
	s.saveLocked()
}

// restoreSession rebuilds a session from its record after a restart. It
// comes back detached; a page resumes it within the resume window.
func (c *Table) restoreSession(r persist.Record, events []persist.Event) (*Session, error) {
	prov, ok := c.cfg.Providers.Get(r.Provider)
	if !ok {
		return nil, wire.Errorf(wire.CodeProviderNotFound, "provider %q is no longer configured", r.Provider)
	}
	skills, problems := schema.ValidateSkills(r.Skills)
	if len(problems) > 0 {
		return nil, wire.Errorf(wire.CodeInvalidInput, "stored tools no longer validate: %v", problems)
	}
	tools, err := schema.NewRegistry(skills)
	if err != nil {
		return nil, err
	}
	dirs, err := makeWorkDirs(c.cfg.StateDir, r.ID, c.cfg.Executable)
	if err != nil {
		return nil, err
	}
	// A grace the record cannot have had (a damaged or hand-edited
	// database) is dropped, not trusted: the session waits the resume
	// window as one without a grace.
	grace, err := disconnectGrace(r.DisconnectGraceMs, r.AutoEndOnDisconnect)
	if err != nil {
		grace = 0
	}
	s := &Session{
		table: c, id: r.ID, secret: ids.New("k_"), origin: r.Origin,
		provider: prov, model: r.Model, createdAt: time.UnixMilli(r.CreatedAt),
		autoEnd: r.AutoEndOnDisconnect, disconnectGrace: grace, dirs: dirs, log: fieldlog.New(c.log, "session", r.ID),
		status: wire.Status(r.Status), seq: r.Seq, primed: r.Primed, providerThread: r.ProviderThread, lastTurnFailed: r.LastTurnFailed,
		events: c.newEventLog(), restoredActive: time.UnixMilli(r.UpdatedAt),
	}
	s.toolset.Store(&toolSet{skills: skills, reg: tools})
	if s.primed {
		s.toldTools = tools.Names() // what its first prompt (or a later turn's) told it
	}
	for _, ev := range events {
		s.events.add(ev)
	}
	s.seq = max(s.seq, s.events.last())
	s.providerState = r.ProviderState
	if st, ok := prov.(provider.SessionState); ok && len(r.ProviderState) > 0 {
		if err := st.ImportSession(r.ID, json.RawMessage(r.ProviderState)); err != nil {
			s.log.Warn("provider state not restored; the agent starts this session's next turn without its history", "err", err)
		}
	}
	s.mu.Lock()
	if s.status == wire.StatusEnded || !slices.Contains(wire.Statuses, s.status) {
		s.status = wire.StatusIdle // no status the state machine could move on from
	}
	// Nothing that was running runs any more: its process, or the MCP
	// client's request, died with the old Core. Each call the page was
	// given is settled interrupted, once.
	// How calls settled, as the log tells, so a late result after the
	// restart gets its reason.
	settledInLog := map[string]bool{}
	for _, c := range settledCalls(events) {
		s.calls.settled.add(c.id, c.how)
		settledInLog[c.id] = true
	}
	for _, p := range r.Pending {
		if settledInLog[p.ID] {
			// Its settling was journaled before the record that no longer
			// lists it, and the crash fell between the two.
			continue
		}
		turnID := p.TurnID
		if turnID == "" && r.Turn != nil && !s.isExternal() {
			turnID = r.Turn.ID // a record written before calls carried their turn
		}
		s.calls.settled.add(p.ID, wire.OutcomeInterrupted)
		s.emitLocked(wire.EventToolCallSettled, turnID, wire.ToolCallSettledData{ToolRequestID: p.ID, Tool: p.Tool, Outcome: wire.OutcomeInterrupted})
	}
	switch {
	case s.isExternal():
		// No turn to cut off: the session waits for the next MCP call.
		s.refreshStatusLocked()
	case r.Turn != nil || s.status == wire.StatusRunning || s.status == wire.StatusWaitingToolResult || s.status == wire.StatusWaitingApproval:
		turnID, warmup := "", false
		if r.Turn != nil {
			turnID, warmup = r.Turn.ID, r.Turn.Warmup
		}
		s.interruptLocked(turnID, warmup, "stopped while it ran")
	}
	s.saveLocked()
	s.mu.Unlock()
	return s, nil
}

// settledCall is one tool_call_settled of the event log.
type settledCall struct {
	id  string
	how wire.SettleOutcome
}

// settledCalls lists the tool_call_settled events in events, oldest first.
func settledCalls(events []persist.Event) []settledCall {
	var out []settledCall
	marker := []byte(`"` + wire.EventToolCallSettled + `"`)
	for _, ev := range events {
		if !bytes.Contains(ev.Frame, marker) {
			continue
		}
		var frame struct {
			Event string                   `json:"event"`
			Data  wire.ToolCallSettledData `json:"data"`
		}
		if json.Unmarshal(ev.Frame, &frame) == nil && frame.Event == wire.EventToolCallSettled {
			out = append(out, settledCall{frame.Data.ToolRequestID, frame.Data.Outcome})
		}
	}
	return out
}

// Restore rebuilds a session from its record after a restart and makes it
// one of the table's: detached, and ended unless a page resumes it within
// the resume window. An external session's tools are offered to MCP
// clients again at once; calls wait for the page to resume, as they
// would while it reconnects.
func (t *Table) Restore(r persist.Record, events []persist.Event) error {
	s, err := t.restoreSession(r, events)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.indexSessionLocked(s)
	t.mu.Unlock()
	s.startResumeWindow()
	return nil
}

// startResumeWindow ends a restored session that no page resumes in time.
// A following page's session (autoEnd with a grace) waits its grace, from
// the restart on, as after any disconnect: the page reconnects within it,
// a tab closed while Core was down never does and ends it as a disconnect.
func (s *Session) startResumeWindow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	window, reason := s.table.cfg.ResumeWindow, wire.EndReasonResumeWindowExpired
	if s.autoEnd && s.disconnectGrace > 0 {
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
}
