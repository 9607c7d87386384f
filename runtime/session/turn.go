package session

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/prompt"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// PrepareMessage is what a warm-up turn asks of the agent: read the rules
// and the tool index, and do nothing else yet.
const PrepareMessage = "This is a warm-up. Read the rules and the tool index above, call no tool, and reply only with: ready"

// StartTurn reserves the session's one turn and returns it with a function
// that runs it; the caller runs that after answering the page, so the page
// knows the turn id before any of the turn's events arrive.
func (s *Session) StartTurn(text string, warmup bool) (*wire.TurnStarted, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended", s.id)
	}
	if s.table.isClosing() {
		// Shutdown sets closing before it cuts off each session's turn
		// under s.mu, so a turn that passes here is cut off and recorded
		// with the others. One started later would outlive Core's record
		// of it: the page would wait forever for a done that neither this
		// Core nor the restarted one reports (issue 20's soak).
		return nil, nil, wire.Errorf(wire.CodeTurnInterrupted, "Core is shutting down; send the message again once it is back (the page reconnects by itself)").
			WithDetails(map[string]any{"reason": "shutdown"})
	}
	if !warmup && s.isExternal() {
		return nil, nil, wire.Errorf(wire.CodeSendTextNotSupported, "session %s's agent is an external MCP client (provider %q): it takes no messages from the page; ask it in your MCP client, which calls the page's tools itself", s.id, s.provider.Name()).
			WithDetails(map[string]any{"provider": s.provider.Name()})
	}
	if s.turn != nil {
		return nil, nil, wire.Errorf(wire.CodeSessionBusy, "session %s is busy with turn %s; wait for its done event", s.id, s.turn.id).
			WithDetails(map[string]any{"turnId": s.turn.id, "status": s.status})
	}
	if warmup && s.primed {
		// Already warm: nothing to do, but the page still gets its done.
		t := &turnState{id: ids.New("t_"), startedAt: time.Now(), warmup: true, done: make(chan struct{})}
		close(t.done)
		return &wire.TurnStarted{TurnID: t.id, StartedAt: t.startedAt.UnixMilli()}, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.emitLocked(wire.EventDone, t.id, wire.DoneData{OK: true, Prepare: true})
		}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.table.cfg.TurnTimeout)
	t := &turnState{id: ids.New("t_"), startedAt: time.Now(), warmup: warmup, cancel: cancel, done: make(chan struct{})}
	s.turn = t
	s.lastTurnFailed = false
	s.notes.TurnStarted(t.id, text, warmup, t.startedAt)
	s.refreshStatusLocked()

	message := text
	if warmup {
		message = PrepareMessage
	}
	skills := s.skills()
	pt := &provider.Turn{
		SessionID: s.id, TurnID: t.id, Message: message, ResumeID: s.providerThread, Model: s.model,
		WorkDir: s.dirs.work, Env: s.dirs.env(s.table.host.URL(), s.table.cfg.CoreKey, s.id, s.secret),
		Tools: skills.Tools, Calls: sessionCaller{s}, Warmup: warmup,
	}
	if s.takesMCP() {
		pt.MCP = s.mcpServer()
	}
	// Either prompt tells the agent the tools as they are now; a later
	// turn's names what changed since (update_tools, tools.go).
	added, removed := s.toolChangesLocked(skills.Tools)
	switch {
	case s.primed && pt.MCP != nil:
		// Its MCP client hears tools/list_changed from the session's
		// endpoint; the section's `pedelec tool-call` lines are not its way.
		pt.Prompt = message
	case s.primed:
		pt.Prompt = prompt.ToolsChanged(agentThreadID(s.id), added, removed) + message
	case pt.MCP != nil:
		pt.Prompt = mcpFirstTurn(skills.Guidance, message)
	default:
		pt.Prompt = prompt.FirstTurn(prompt.Params{ThreadID: agentThreadID(s.id), Guidance: skills.Guidance, Tools: skills.Tools, Message: message})
	}
	s.table.turns.Add(1)
	run := func() {
		go func() {
			defer s.table.turns.Done()
			s.runTurn(ctx, t, pt)
		}()
	}
	return &wire.TurnStarted{TurnID: t.id, StartedAt: t.startedAt.UnixMilli()}, run, nil
}

// runTurn runs one provider turn and reports its end.
func (s *Session) runTurn(ctx context.Context, t *turnState, pt *provider.Turn) {
	defer close(t.done)
	defer t.cancel()
	log := s.log.With("turn", t.id)
	log.Info("turn started", "provider", s.provider.Name(), "warmup", t.warmup, "resume", pt.ResumeID != "")
	err := s.provider.RunTurn(ctx, pt, func(ev provider.Event) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if ev.ProviderThreadID != "" && ev.ProviderThreadID != s.providerThread {
			s.providerThread = ev.ProviderThreadID
			s.saveLocked()
		}
		if ev.ChatDelta != "" && !t.warmup && !s.ended {
			for _, piece := range splitChat(provider.CleanChat(ev.ChatDelta), maxChatChunk) {
				s.emitLocked(wire.EventChatDelta, t.id, wire.ChatDeltaData{Text: piece})
			}
		}
		if ev.Warning != "" {
			// Through the refusal log: an agent asking permission 30,000
			// times must not write 30,000 lines (one per kind a window).
			kind, _, _ := strings.Cut(ev.Warning, ":")
			if r := s.table.cfg.Refusals; r != nil {
				r.Note("provider-warning", s.id+"\x00"+kind, "provider", "warning", ev.Warning, "session", s.id, "turn", t.id)
			} else {
				log.Warn("provider", "warning", ev.Warning)
			}
		}
		if ev.Debug != "" {
			log.Debug("provider", "note", ev.Debug)
		}
		if a := ev.Activity; a != nil {
			log.Info("agent activity", "tool", a.Title, "kind", a.Kind, "status", a.Status, "reason", a.Reason)
			if !t.warmup && !s.ended {
				s.emitLocked(wire.EventAgentActivity, t.id, *a)
			}
		}
	})
	var werr *wire.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		werr = wire.Errorf(wire.CodeProviderTimeout, "the %s turn did not finish within %s", s.provider.Name(), s.table.cfg.TurnTimeout).
			WithDetails(map[string]any{"provider": s.provider.Name(), "turnTimeoutMs": s.table.cfg.TurnTimeout.Milliseconds()})
	case err != nil:
		werr = wire.AsError(err)
	}

	state := s.exportProviderState()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return // End already told the page
	}
	if state != nil {
		s.providerState = state
	}
	if s.table.isClosing() {
		// Core is stopping: the turn was cut off, not failed by the agent.
		s.interruptLocked(t.id, t.warmup, "is shutting down")
		return
	}
	// Calls the agent abandoned (its process died) cannot be answered any more.
	s.failPendingLocked(wire.Errorf(wire.CodeProviderError, "the turn ended before the call was answered"), wire.OutcomeCancelled)
	s.handoffs.forgetLocked() // handed-over calls are the turn's: their handles go with it
	s.turn = nil
	if werr == nil {
		s.primed = true
	} else {
		s.lastTurnFailed = true
	}
	s.refreshStatusForTurnLocked(t.id) // the turn's last status event still names it
	if werr != nil {
		log.Warn("turn failed", "code", werr.Code, "message", werr.Message)
		s.emitLocked(wire.EventError, t.id, wire.ErrorData{Error: werr})
	} else {
		log.Info("turn done", "elapsed", time.Since(t.startedAt).Round(time.Millisecond))
	}
	defer s.saveLocked() // primed, the provider's state
	s.emitLocked(wire.EventDone, t.id, wire.DoneData{OK: werr == nil, Prepare: t.warmup, Error: werr})
}
