package session

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/callprogress"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A call that outlives the agent's command (issue 26). The agent's shell
// kills a command after its own timeout (Claude Code's Bash tool after 2
// minutes); a tool waiting for the user can take longer. So `tool-call`
// tells Core its budget, and when the call is still running when the
// budget is spent, Core answers TOOL_CALL_PENDING with a handle instead of
// the result: tool-call exits 3 before the shell would kill it, the call
// goes on under its own timeoutMs, and `tool-call --wait <handle>` waits
// for the same call, again within its budget. The result goes to exactly
// one waiter: the one that is waiting when it comes, or the first to ask
// after.
//
// Handles live in the session, under its mu: another session's agent,
// holding another secret, cannot name them. A handed-over call is still
// the turn's: when the turn ends, the call is cancelled (the broker
// settles every pending call then) and its handle forgotten, so a later
// turn's --wait gets TOOL_CALL_NOT_WAITABLE (turn_ended). They survive a
// page that reconnects; not a Core restart, which interrupts the turn.

// Handoff is one call run for the agent endpoint.
type Handoff struct {
	handle string // "" until the call is first handed over
	thread string // the thread id the agent named the session by, for next
	tool   string
	start  time.Time
	watch  callWatch
	cancel context.CancelFunc
	done   chan struct{}    // closed once out is set
	out    wire.AgentResult // the answer, by the definition the call started with

	// Under the session's mu:
	waiting bool   // a request is waiting for it now
	seq     uint64 // order of the first hand-over, for dropping the oldest unclaimed
}

// handoffs are a session's handed-over calls, under its mu.
type handoffs struct {
	byHandle map[string]*Handoff
	gone     settledLog // handles no longer waitable, and why (reuses the bounded log)
	seq      uint64     // hand-overs so far
}

// Reasons of TOOL_CALL_NOT_WAITABLE; a handle never given, or forgotten
// long ago, is notPendingUnknown ("unknown").
const (
	notWaitableDelivered = "delivered"
	notWaitableWaiting   = "waiting"
	notWaitableTurnEnded = "turn_ended"
	notWaitableDropped   = "dropped"
)

// forgetLocked drops every handle: the turn ended (or the session did).
func (h *handoffs) forgetLocked() {
	for id, ho := range h.byHandle {
		h.gone.add(id, notWaitableTurnEnded)
		delete(h.byHandle, id)
		ho.cancel()
	}
}

// dropUnclaimedLocked keeps at most keep settled results that no one has
// claimed, the newest: an agent that lets every call be handed over and
// never waits would otherwise make the session hold every result (up to a
// frame each) until the turn ends. A --wait for a dropped one is
// TOOL_CALL_NOT_WAITABLE (dropped).
func (h *handoffs) dropUnclaimedLocked(keep int) {
	var settled []*Handoff
	for _, ho := range h.byHandle {
		select {
		case <-ho.done:
			if !ho.waiting {
				settled = append(settled, ho)
			}
		default:
		}
	}
	if len(settled) <= keep {
		return
	}
	slices.SortFunc(settled, func(a, b *Handoff) int { return cmp.Compare(a.seq, b.seq) })
	for _, ho := range settled[:len(settled)-keep] {
		delete(h.byHandle, ho.handle)
		h.gone.add(ho.handle, notWaitableDropped)
	}
}

// StartHandoff runs the call in the background, detached from the
// request that asked for it: the request may end (handed over) while the
// call goes on. to is ForAgent for `tool-call`, ForMCP for `pedelec mcp`
// serving one session.
func (s *Session) StartHandoff(thread, tool string, args json.RawMessage, to Audience) *Handoff {
	ctx, cancel := context.WithCancel(context.Background())
	h := &Handoff{thread: thread, tool: tool, start: time.Now(), cancel: cancel, done: make(chan struct{}), waiting: true}
	h.watch.box = callprogress.New()
	go func() {
		defer cancel()
		h.out = s.call(ctx, CallRequest{Tool: tool, Args: args, For: to}, &h.watch)
		close(h.done)
		s.mu.Lock()
		s.handoffs.dropUnclaimedLocked(s.table.cfg.MaxPendingCalls)
		s.mu.Unlock()
	}()
	return h
}

// AwaitHandoff waits for h on behalf of one request for at most budget
// (0: as long as it takes). It returns the result (and forgets the
// handle), or hands the call over and returns TOOL_CALL_PENDING. ctx
// ending before either (the request went away) cancels the call, as an
// interrupted tool-call always has; the answer then reaches nobody.
func (s *Session) AwaitHandoff(ctx context.Context, h *Handoff, budget time.Duration) wire.AgentResult {
	var expire <-chan time.Time
	if budget > 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		expire = t.C
	}
	select {
	case <-h.done:
	case <-expire:
		s.mu.Lock()
		select {
		case <-h.done: // it answered just now: deliver it instead
			s.mu.Unlock()
		default:
			details := s.handOverLocked(h)
			s.mu.Unlock()
			return wire.AgentResult{Error: wire.Errorf(wire.CodeToolCallPending,
				"%s is still running in Core after %s (this command's time limit is nearly spent); run `%s` to wait for its result. Do not call the tool again: that would run it twice",
				h.tool, (time.Duration(details.ElapsedMs) * time.Millisecond).Round(100*time.Millisecond), details.Next).WithDetails(details)}
		}
	case <-ctx.Done():
		h.cancel() // the broker settles it cancelled; the answer reaches nobody
		<-h.done
	}
	s.mu.Lock()
	h.waiting = false
	if h.handle != "" {
		delete(s.handoffs.byHandle, h.handle)
		s.handoffs.gone.add(h.handle, notWaitableDelivered)
	}
	s.mu.Unlock()
	return h.out
}

// Progress is where the handed-over call's progress goes.
func (h *Handoff) Progress() *callprogress.Box { return h.watch.box }

// handOverLocked gives h a handle (the first time) and says how to wait.
func (s *Session) handOverLocked(h *Handoff) wire.PendingDetails {
	if h.handle == "" {
		h.handle = ids.New("h_")
		s.handoffs.seq++
		h.seq = s.handoffs.seq
		if s.handoffs.byHandle == nil {
			s.handoffs.byHandle = map[string]*Handoff{}
		}
		s.handoffs.byHandle[h.handle] = h
	}
	h.waiting = false
	return wire.PendingDetails{
		Handle: h.handle, Next: waitCommand(h.thread, h.handle), Tool: h.tool,
		ToolRequestID: h.watch.id, TimeoutMs: h.watch.timeoutMs,
		ElapsedMs: time.Since(h.start).Milliseconds(),
	}
}

// waitCommand is TOOL_CALL_PENDING's details.next. It names the thread
// as the prompt's commands do, and starts with `pedelec tool-call`, which
// every CLI's allow rules let the agent run without asking.
func waitCommand(thread, handle string) string {
	return "pedelec tool-call --thread-id " + shellWord(thread) + " --wait " + handle
}

// shellWord quotes s for a POSIX shell unless it is plainly one word
// (session ids and handles are).
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ClaimHandoff finds handle for a --wait and marks it waited on.
func (s *Session) ClaimHandoff(handle string) (*Handoff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.handoffs.byHandle[handle]
	reason := s.handoffs.gone.reason(handle)
	if ok && h.waiting {
		ok, reason = false, notWaitableWaiting
	}
	if !ok {
		return nil, wire.Errorf(wire.CodeToolCallNotWaitable, "cannot wait for %s: %s", handle, notWaitableMessage(reason)).
			WithDetails(map[string]any{"handle": handle, "reason": reason})
	}
	h.waiting = true
	return h, nil
}

func notWaitableMessage(reason string) string {
	switch reason {
	case notWaitableDelivered:
		return "its result was already delivered to an earlier wait; it is not delivered twice"
	case notWaitableWaiting:
		return "another `tool-call --wait` is waiting for this call now"
	case notWaitableTurnEnded:
		return "the turn it belonged to ended, which cancelled the call; call the tool again if you still need it"
	case notWaitableDropped:
		return "its result waited unclaimed while later calls' results came, and Core keeps only the newest few; it was dropped. Wait for a handed-over call before starting many more; call the tool again if you still need it"
	}
	return "no such call in this session; call the tool again if you still need it"
}
