package provider

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The early start: an ACP agent's process, initialize and session/new (or
// session/load) cost a second or more (node programs, MCP servers), and a
// page creates its session well before the user's first message. So Core
// asks for the agent at createSession, resumeSession and its own restart
// (EarlyStarter), and the first turn lands on a live agent. One start per
// session at a time: a turn that arrives during it waits for it; a start
// that failed is reported on the session and the first turn starts the
// agent again (one retry); a started agent that no turn uses is stopped
// after the idle time like any warm one; CloseSession during the start
// cancels it and returns once its process is gone.

// EarlyStarter is a provider that can start a session's agent before the
// session's first turn.
type EarlyStarter interface {
	// StartEarly starts the agent for turn (no prompt: SessionID, WorkDir,
	// Env, Model, ResumeID, Tools, MCP) in the background and reports
	// whether it did. It does not when the provider's early_start setting
	// is false, when the session's agent is already live or starting, or
	// when lastActive is longer ago than the idle time (a session its
	// agent would already have left: Core's restart). failed is called,
	// from another goroutine, with the start's error.
	StartEarly(turn *Turn, lastActive time.Time, failed func(error)) bool
}

// ToolsRestarter is a provider whose agent learns the session's tools
// only when it starts (acpSpec.toolsAtStart): when the page's tools
// change between turns, Core asks it to start the agent again now, so
// the next turn does not wait for that start and finds the new tools
// already listed.
type ToolsRestarter interface {
	// RestartForTools stops the session's warm agent if its tools differ
	// from turn.Tools and starts one for them in the background, as
	// StartEarly does (turn.ResumeID loads the conversation). It reports
	// whether it did.
	RestartForTools(turn *Turn, failed func(error)) bool
}

// acpStart is one session's agent being started ahead of its turn.
type acpStart struct {
	ctx    context.Context // the start's; cancelled by cancelStart
	done   chan struct{}   // closed when the start finished, its outcome set
	cancel context.CancelFunc
	// closed: CloseSession wants no agent; set under acpAgent.mu.
	closed bool
	// waited is closed (once, waitOnce) when a turn starts waiting for
	// this start: a warm-up under way stops, since that turn's own prompt
	// does the same work and should not wait for both.
	waited   chan struct{}
	waitOnce sync.Once
	// events are what the start reported (a session/load that fell back
	// to session/new): the turn that takes the agent passes them on.
	mu     sync.Mutex
	events []Event
	err    error
}

func (st *acpStart) emit(ev Event) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.events = append(st.events, ev)
}

// takeEvents returns the start's events, once.
func (st *acpStart) takeEvents() []Event {
	st.mu.Lock()
	defer st.mu.Unlock()
	evs := st.events
	st.events = nil
	return evs
}

func (a *acpAgent) StartEarly(turn *Turn, lastActive time.Time, failed func(error)) bool {
	if a.settings.EarlyStart != nil && !*a.settings.EarlyStart {
		return false
	}
	left := a.idle - time.Since(lastActive)
	if left <= 0 {
		return false
	}
	sid := turn.SessionID
	a.mu.Lock()
	if a.warm[sid] != nil || a.starting[sid] != nil || a.stopping[sid] != nil {
		a.mu.Unlock()
		return false
	}
	st := a.beginStartLocked(sid)
	a.mu.Unlock()
	go a.runStart(st, turn, left, failed, nil)
	return true
}

func (a *acpAgent) RestartForTools(turn *Turn, failed func(error)) bool {
	if !a.spec.toolsAtStart || (a.settings.EarlyStart != nil && !*a.settings.EarlyStart) {
		return false // the next turn's own check restarts it
	}
	sid := turn.SessionID
	a.mu.Lock()
	w := a.warm[sid]
	if w == nil || w.inTurn || w.tools == toolsKey(turn.Tools) || a.starting[sid] != nil || a.stopping[sid] != nil {
		a.mu.Unlock()
		return false // no agent to tell, a turn has it, it has these tools, or one is coming or going
	}
	// The old agent is stopped inside the start, so a turn that comes
	// meanwhile waits for the new one instead of starting its own beside
	// a stop whose sweep of the session's processes would take it too.
	delete(a.warm, sid)
	st := a.beginStartLocked(sid)
	a.mu.Unlock()
	go a.runStart(st, turn, a.idle, failed, func() { a.drop(sid, w) })
	return true
}

// beginStartLocked registers a start for sid; a.mu is held.
func (a *acpAgent) beginStartLocked(sid string) *acpStart {
	ctx, cancel := context.WithCancel(context.Background())
	st := &acpStart{ctx: ctx, done: make(chan struct{}), cancel: cancel, waited: make(chan struct{})}
	a.starting[sid] = st
	return st
}

// runStart is st's start of turn's agent, which stays warm for left; first,
// if set, runs before it (stopping the agent it replaces).
func (a *acpAgent) runStart(st *acpStart, turn *Turn, left time.Duration, failed func(error), first func()) {
	ctx, cancel := st.ctx, st.cancel
	sid := turn.SessionID
	defer cancel()
	if first != nil {
		first()
	}
	w, err := a.start(ctx, turn, st.emit)
	// A turn that already waits for the start gets the agent at once: a
	// warm-up would be stopped, but a request it had sent would still
	// make the agent work beside the turn's own prompt.
	if err == nil && a.spec.warmUp != nil && !closedChan(st.waited) {
		wctx, stop := context.WithCancel(ctx)
		go func() {
			select {
			case <-st.waited:
				stop()
			case <-wctx.Done():
			}
		}()
		began := time.Now()
		a.spec.warmUp(wctx, w, turn)
		note := "warmed up"
		if wctx.Err() != nil && ctx.Err() == nil {
			note = "stopped warming up for the turn that came"
		}
		stop()
		st.emit(Event{Debug: fmt.Sprintf("%s %s in %d ms", a.spec.name, note, time.Since(began).Milliseconds())})
	}
	a.mu.Lock()
	delete(a.starting, sid)
	closed := st.closed
	unwanted := err == nil && (closed || a.warm[sid] != nil) // closed meanwhile, or a turn started its own
	switch {
	case err != nil:
		st.err = err
	case !unwanted:
		// The start's events wait on the agent for the turn that
		// takes it, which may come long after the start ended.
		w.pending = st.takeEvents()
		a.warm[sid] = w
		w.idle = a.clock(left, func() { a.drop(sid, w) })
	}
	a.mu.Unlock()
	if unwanted {
		w.stop()
	}
	close(st.done)
	if err != nil && !closed {
		failed(err)
	}
}

// awaitStart waits for the session's early start, if one runs, and returns
// it (nil if none ran), or ctx's error.
func (a *acpAgent) awaitStart(ctx context.Context, sessionID string) (*acpStart, error) {
	a.mu.Lock()
	st := a.starting[sessionID]
	a.mu.Unlock()
	if st == nil {
		return nil, nil
	}
	st.waitOnce.Do(func() { close(st.waited) })
	select {
	case <-st.done:
		return st, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// cancelStart stops the session's early start, if one runs, and returns
// once its process is gone.
func (a *acpAgent) cancelStart(sessionID string) {
	a.mu.Lock()
	st := a.starting[sessionID]
	if st != nil {
		st.closed = true
		st.cancel()
	}
	a.mu.Unlock()
	if st != nil {
		<-st.done
	}
}

// closedChan reports, without waiting, whether ch is closed (an agent's
// connection that ended, a turn that already waits for a start).
func closedChan(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
