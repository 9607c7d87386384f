package session

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"github.com/kaoruisaac/pedelec/runtime/callprogress"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/suggest"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// pendingCall is one tool call waiting for the page's result.
type pendingCall struct {
	id            string
	tool          string
	def           *schema.CompiledTool // the definition the call started with: its result is judged by it
	args          json.RawMessage
	timeoutMs     int64
	deadline      time.Time
	turnID        string
	turnStartedAt time.Time
	outcome       chan callOutcome  // buffered: settling never blocks
	progress      *callprogress.Box // the handler's latest ctx.progress (progress.go)
	eventSeq      int64             // the seq of its latest tool_call event: a resume with lastSeq before it gets it in the replay
}

// pendingCalls is a session's broker state, guarded by the session's mu:
// the calls waiting for the page, in the order they were made, and how
// recent calls settled. Every change to it goes through settleLocked.
type pendingCalls struct {
	byID    map[string]*pendingCall
	order   []*pendingCall // oldest first
	settled settledLog
}

func (p *pendingCalls) add(call *pendingCall) {
	if p.byID == nil {
		p.byID = map[string]*pendingCall{}
	}
	p.byID[call.id] = call
	p.order = append(p.order, call)
}

func (p *pendingCalls) get(id string) (*pendingCall, bool) {
	call, ok := p.byID[id]
	return call, ok
}

func (p *pendingCalls) len() int { return len(p.order) }

// inOrder is a copy of the pending calls, oldest first.
func (p *pendingCalls) inOrder() []*pendingCall {
	return append([]*pendingCall(nil), p.order...)
}

// remove takes call out and records how it settled; false if it was not
// pending (it settled already).
func (p *pendingCalls) remove(call *pendingCall, how wire.SettleOutcome) bool {
	if _, ok := p.byID[call.id]; !ok {
		return false
	}
	delete(p.byID, call.id)
	for i, c := range p.order {
		if c == call {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	p.settled.add(call.id, how)
	return true
}

// waitingOn lists the pending calls for a waiting_tool_result status.
func (p *pendingCalls) waitingOn() []wire.PendingTool {
	out := make([]wire.PendingTool, 0, len(p.order))
	for _, c := range p.order {
		out = append(out, wire.PendingTool{ToolRequestID: c.id, Tool: c.tool})
	}
	return out
}

type callOutcome struct {
	result  json.RawMessage
	content json.RawMessage // the page's MCP content blocks, checked; nil for none
	err     error
}

// eventData is the call's tool_call data but for its args, which
// emitToolCallLocked writes in as they are.
func (p *pendingCall) eventData(redelivered bool) wire.ToolCallData {
	return wire.ToolCallData{
		ToolRequestID: p.id, Tool: p.tool, TimeoutMs: p.timeoutMs,
		Deadline: p.deadline.UnixMilli(), TurnStartedAt: p.turnStartedAt.UnixMilli(), Redelivered: redelivered,
	}
}

// callWatch lets a call's caller follow it: its id and timeout, set
// under the session's mu once they are known, and the Box its progress
// goes to.
type callWatch struct {
	box       *callprogress.Box
	id        string
	timeoutMs int64
}

// broker checks one call of def, hands it to the page, and waits for the
// result, the tool's deadline, the session's end, or the caller giving up
// (ctx), with the call's progress going to w.box. Every call comes
// through here (call.go), so validation, consent, timeouts and status are
// the same for all, and all by def: the definition the call started with.
func (s *Session) broker(ctx context.Context, def *schema.CompiledTool, args json.RawMessage, w *callWatch) callOutcome {
	tool := def.Def().Name
	if max := s.table.cfg.MaxArgsBytes; len(args) > max {
		return callOutcome{err: wire.Errorf(wire.CodeMessageTooLarge, "arguments for %s are %d bytes; the limit is %d", tool, len(args), max).
			WithDetails(map[string]any{"tool": tool, "size": len(args), "limit": max})}
	}
	// The validator is the one place Core decodes a call's arguments; the
	// page is sent these bytes as they are, so they must be exactly what it
	// checked: no space or byte order mark around them (JSON.parse refuses
	// the mark) and UTF-8 throughout (ValidateArgs refuses the rest, which
	// would end the page's socket as a text frame).
	args = bytes.TrimFunc(args, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if v := def.ValidateArgs(args); len(v) > 0 {
		return callOutcome{err: schema.ArgsInvalid(tool, v)}
	}
	timeout := def.Timeout(s.table.cfg.ToolTimeout)
	callID := ids.New("tr_")
	box := w.box
	// Consent is decided once, under s.mu, which StartTurn takes too: the
	// turn the call belongs to is the one found here, and no turn can
	// start between the decision and the delivery (issue 35: a turn that
	// started between two looks let a call reach the page unasked).
	s.mu.Lock()
	w.id, w.timeoutMs = callID, timeout.Milliseconds()
	now := time.Now()
	turnID, turnStartedAt, hasTurn := s.callTurnLocked(now)
	if err := s.refuseCallLocked(hasTurn); err != nil {
		s.mu.Unlock()
		callDecided(s)
		return callOutcome{err: err}
	}
	approvedBy, waited := "", false
	if def.Def().AsksConsent() {
		by, wait := s.askConsentLocked(def.Def(), callID, args, timeout)
		approvedBy = by
		if wait != nil {
			s.mu.Unlock()
			callDecided(s)
			waited = true
			var err error
			approvedBy, err = s.awaitConsent(ctx, wait)
			if err != nil {
				return callOutcome{err: err}
			}
			s.mu.Lock()
			// An approved call leaves waiting_approval as it joins the
			// pending calls below, in one status change; it runs in the
			// turn the user was asked in, or not at all.
			s.consent.removeCall(callID)
			now = time.Now()
			stillID, _, stillHas := s.callTurnLocked(now)
			err = s.refuseCallLocked(stillHas)
			if err == nil && stillID != turnID {
				err = wire.Errorf(wire.CodeNoActiveTurn, "the turn %s was called in ended while the call waited for consent; it did not run", tool)
			}
			if err != nil {
				s.refreshStatusAndSaveLocked()
				s.mu.Unlock()
				return callOutcome{err: err}
			}
		}
	}
	if s.calls.len() >= s.table.cfg.MaxPendingCalls {
		s.refreshStatusLocked() // in case an approved call just left waiting_approval
		s.mu.Unlock()
		return callOutcome{err: wire.Errorf(wire.CodeTooManyPendingCalls, "%d tool calls are already pending in this session (the limit); wait for one to finish", s.calls.len()).
			WithDetails(map[string]any{"limit": s.table.cfg.MaxPendingCalls})}
	}
	call := &pendingCall{
		id: callID, tool: tool, def: def, args: args, timeoutMs: timeout.Milliseconds(),
		deadline: now.Add(timeout), turnID: turnID, turnStartedAt: turnStartedAt,
		outcome: make(chan callOutcome, 1), progress: box,
	}
	s.calls.add(call)
	s.notes.CallStarted(call.id, now)
	// Status first, so the page hears waiting_tool_result from Core before
	// the call it runs a handler for. The record, with the call in its
	// pending list, goes to the journal before the tool_call event does.
	s.refreshStatusAndSaveLocked()
	s.emitToolCallLocked(call, false)
	s.mu.Unlock()
	if !waited {
		callDecided(s)
	}
	s.log.Debug("tool call", "turn", call.turnID, "tool", tool, "toolRequestId", call.id)
	if approvedBy != "" {
		s.table.NoteCallApproved(s.id, call.id, approvedBy)
	}

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	// The caller learns how the call settled only once the journal has it
	// (written by the page's connection, if it got there first): a crash
	// cannot then settle it again, differently, after the restart.
	defer s.table.persist.Sync()
	select {
	case out := <-call.outcome:
		return out
	case <-timer.C:
		s.mu.Lock()
		s.settleLocked(call, callOutcome{err: wire.Errorf(wire.CodeToolTimeout,
			"tool %s did not answer within %s: the page may have failed, or may still be waiting for the user. Tell the user; call it again only if they ask", tool, timeout).WithDetails(map[string]any{"tool": tool, "toolRequestId": call.id, "timeoutMs": call.timeoutMs})}, wire.OutcomeTimeout)
		s.mu.Unlock()
	case <-ctx.Done():
		s.mu.Lock()
		s.settleLocked(call, callOutcome{err: wire.Errorf(wire.CodeToolCallCancelled, "the caller of %s stopped waiting", tool).
			WithDetails(map[string]any{"toolRequestId": call.id})}, wire.OutcomeCancelled)
		s.mu.Unlock()
	}
	return <-call.outcome // settled by us above, or by a result/end that won the race
}

// testHookCallDecided, when set (by tests), runs once a call's consent is
// decided (refused, asked, or not needed), without the session's lock.
var testHookCallDecided func(*Session)

func callDecided(s *Session) {
	if testHookCallDecided != nil {
		testHookCallDecided(s)
	}
}

// refuseCallLocked is why a call cannot run now: the session ended, or,
// hasTurn false, no turn runs (an external agent's calls need none).
func (s *Session) refuseCallLocked(hasTurn bool) error {
	switch {
	case s.ended:
		return wire.Errorf(wire.CodeSessionEnded, "session %s has ended", s.id)
	case !hasTurn:
		return wire.Errorf(wire.CodeNoActiveTurn, "session %s is not running a turn; tools can be called only while the agent works on a message", s.id)
	}
	return nil
}

// ToolNotFound is the TOOL_NOT_FOUND error for tool, for tool-call and tool-spec.
func (s *Session) ToolNotFound(tool string) error {
	// Listed as words, "a, b, c", not Go's "[a b c]"; details has the array.
	names := strings.Join(s.tools().Names(), ", ")
	if names == "" {
		names = "none"
	}
	details := map[string]any{"tool": tool, "available": s.tools().Names()}
	if want := suggest.Closest(tool, s.tools().Names()); want != "" {
		// The agent's next try should be the right name, not a guess.
		details["didYouMean"] = want
		return wire.Errorf(wire.CodeToolNotFound, "no tool %q in this session (did you mean %q?); available tools: %s", tool, want, names).WithDetails(details)
	}
	return wire.Errorf(wire.CodeToolNotFound, "no tool %q in this session; available tools: %s", tool, names).WithDetails(details)
}

// settleLocked ends one pending call with out, tells the page, and updates
// the status. A call settles exactly once; later settles are ignored.
func (s *Session) settleLocked(call *pendingCall, out callOutcome, how wire.SettleOutcome) {
	if !s.calls.remove(call, how) {
		return
	}
	s.notes.CallSettled(call.id, out.result, out.err, how, time.Now())
	s.emitLocked(wire.EventToolCallSettled, call.turnID, wire.ToolCallSettledData{ToolRequestID: call.id, Tool: call.tool, Outcome: how})
	s.refreshStatusAndSaveLocked()
	// The caller hears last, once the settle is in the journal's buffer:
	// its Sync (broker) then hands the kernel the settle it is about to
	// report. Told first, it could answer its client before the page's
	// connection had appended the settle, and a crash in between made the
	// restart settle the call again, as interrupted.
	call.outcome <- out
}

// refreshStatusAndSaveLocked is refreshStatusLocked for a change to the
// pending calls: the record is saved even when the status stays the same.
// A restart settles exactly the calls the record lists, so a call added
// while others wait must be in it before the page or the agent hears of
// it, and a settled one must leave it, or a restart settles it twice.
// (The record was written only on a status change: of three calls
// pending at kill -9, the restart knew one. Issue 20.)
func (s *Session) refreshStatusAndSaveLocked() {
	before := s.status
	s.refreshStatusLocked()
	if s.status == before {
		s.saveLocked() // a status change saved it already
	}
}

// failPendingLocked settles every pending call with err.
func (s *Session) failPendingLocked(err error, how wire.SettleOutcome) {
	s.consent.failAll(err) // calls still waiting for the user's consent stop too
	for _, call := range s.calls.inOrder() {
		s.settleLocked(call, callOutcome{err: err}, how)
	}
}

// notPendingUnknown is TOOL_REQUEST_NOT_PENDING's reason for a call that never
// was (or was settled too long ago to remember).
const notPendingUnknown = "unknown"

// notPendingMessage explains TOOL_REQUEST_NOT_PENDING by how the call
// settled (its details.reason): a SettleOutcome or notPendingUnknown.
func notPendingMessage(reason string) string {
	switch wire.SettleOutcome(reason) {
	case wire.OutcomeTimeout:
		return "the call timed out before the result arrived"
	case wire.OutcomeResult:
		return "a result was already submitted for this call"
	case wire.OutcomeSessionEnded:
		return "the session ended before the result arrived"
	case wire.OutcomeCancelled:
		return "the agent stopped waiting for this call"
	case wire.OutcomeInterrupted:
		return "Core stopped (a restart or a crash) while the call was pending"
	}
	return "no such call is pending in this session"
}

// settledLog remembers how recent calls settled, so a late or duplicate
// result gets a reason ("timeout", "result", ...) instead of "unknown".
// It keeps the last 512 ids: enough for any page's late answers, bounded
// for a long session.
type settledLog struct {
	how   map[string]wire.SettleOutcome
	order []string
}

func (l *settledLog) add(id string, how wire.SettleOutcome) {
	if l.how == nil {
		l.how = map[string]wire.SettleOutcome{}
	}
	l.how[id] = how
	l.order = append(l.order, id)
	if len(l.order) > 512 {
		delete(l.how, l.order[0])
		l.order = l.order[1:]
	}
}

// reason is how id settled, or notPendingUnknown.
func (l *settledLog) reason(id string) string {
	if how, ok := l.how[id]; ok {
		return string(how)
	}
	return notPendingUnknown
}
