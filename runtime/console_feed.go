package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// consoleSignal wakes the console's feeds when anything they show may have
// changed: a session's event, a session made or forgotten, an approval.
// Its mu is a leaf (core.go: the lock order): bump runs under Session.mu
// and Core.mu.
type consoleSignal struct {
	mu      sync.Mutex
	version int64
	changed chan struct{} // closed and replaced on every bump
}

func (c *consoleSignal) bump() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version++
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// wait returns a channel closed at the next bump.
func (c *consoleSignal) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// ConsoleChanged wakes the console's feeds; the approvals book calls it
// when a request is made or decided and when a grant changes.
func (c *Core) ConsoleChanged() { c.console.bump() }

const (
	// consoleCoalesce gathers a burst of changes (chat deltas arrive many
	// a second) into one delta; a call still shows well within a second.
	consoleCoalesce = 40 * time.Millisecond
	// consoleRescan is how often the feed looks again at what changes
	// without an event: the provider processes.
	consoleRescan = 2 * time.Second
	// consoleWriteTimeout bounds one write of the feed.
	consoleWriteTimeout = 10 * time.Second
)

// feedTracker is one feed's memory of what it sent, so each delta carries
// only what changed: sessions by their consoleKey, the processes and the
// approvals by their JSON.
type feedTracker struct {
	version   int64
	sessions  map[string]consoleKey
	processes string
	approvals string
}

// feedInput is the state the feed compares with what it sent.
type feedInput struct {
	sessions  []*Session // oldest first
	processes []wire.ConsoleProcess
	approvals *wire.ApprovalsState
}

// snapshot is the whole state; it resets what the tracker has sent.
func (f *feedTracker) snapshot(in feedInput, coreURL string) wire.ConsoleSnapshot {
	f.version++
	f.sessions = make(map[string]consoleKey, len(in.sessions))
	snap := wire.ConsoleSnapshot{Version: f.version, CoreURL: coreURL, Sessions: []wire.ConsoleSession{}, Processes: in.processes, Approvals: in.approvals}
	for _, s := range in.sessions {
		f.sessions[s.id] = s.consoleKey()
		snap.Sessions = append(snap.Sessions, s.consoleView())
	}
	f.processes, f.approvals = jsonText(in.processes), jsonText(in.approvals)
	return snap
}

// delta is what changed since the last snapshot or delta; ok is false
// when nothing did.
func (f *feedTracker) delta(in feedInput) (d wire.ConsoleDelta, ok bool) {
	live := make(map[string]bool, len(in.sessions))
	for _, s := range in.sessions {
		live[s.id] = true
		key := s.consoleKey()
		if sent, had := f.sessions[s.id]; had && sent == key {
			continue
		}
		f.sessions[s.id] = key
		d.Sessions = append(d.Sessions, s.consoleView())
	}
	for id := range f.sessions {
		if !live[id] {
			delete(f.sessions, id)
			d.Removed = append(d.Removed, id)
		}
	}
	slices.Sort(d.Removed)
	if p := jsonText(in.processes); p != f.processes {
		f.processes = p
		procs := in.processes
		d.Processes = &procs
	}
	if a := jsonText(in.approvals); a != f.approvals && in.approvals != nil {
		f.approvals = a
		d.Approvals = in.approvals
	}
	if d.Sessions == nil && d.Removed == nil && d.Processes == nil && d.Approvals == nil {
		return d, false
	}
	f.version++
	d.Version = f.version
	return d, true
}

func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// consoleInput gathers what the feed shows; processes only when asked (a
// walk of /proc).
func (c *Core) consoleInput(withProcesses bool, prev []wire.ConsoleProcess) feedInput {
	c.mu.Lock()
	all := make([]*Session, 0, len(c.sessions))
	for _, s := range c.sessions {
		all = append(all, s)
	}
	c.mu.Unlock()
	slices.SortFunc(all, func(a, b *Session) int {
		return cmp.Or(a.createdAt.Compare(b.createdAt), cmp.Compare(a.id, b.id))
	})
	in := feedInput{sessions: all, processes: prev}
	if withProcesses {
		in.processes = c.providerProcesses(all)
	}
	if c.consoleApprovals != nil {
		st := c.consoleApprovals()
		in.approvals = &st
	}
	return in
}

// providerProcesses lists the live processes of sessions that are not ended.
func (c *Core) providerProcesses(all []*Session) []wire.ConsoleProcess {
	ids := map[string]bool{}
	for _, s := range all {
		if !s.isEnded() {
			ids[s.id] = true
		}
	}
	out := []wire.ConsoleProcess{}
	if len(ids) == 0 {
		return out
	}
	for _, p := range provider.SessionProcesses(ids) {
		out = append(out, wire.ConsoleProcess{PID: p.PID, SessionID: p.SessionID, Command: p.Command})
	}
	slices.SortFunc(out, func(a, b wire.ConsoleProcess) int { return cmp.Compare(a.PID, b.PID) })
	return out
}

// ConsoleSnapshot is the console's whole state now.
func (c *Core) ConsoleSnapshot() wire.ConsoleSnapshot {
	var f feedTracker
	return f.snapshot(c.consoleInput(true, nil), c.coreURL)
}

// serveConsoleFeed streams the console's state as Server-Sent Events: a
// "snapshot" first, then a "delta" soon after each change. A comment line
// every consoleRescan keeps idle proxies and the browser's timers content.
func (c *Core) serveConsoleFeed(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(c.mcp.ctx, cancel) // Core stopping ends the stream
	defer stop()
	// A console that stops reading (a frozen tab) must not hold this
	// goroutine: each write gets consoleWriteTimeout.
	rc := http.NewResponseController(w)
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(consoleWriteTimeout)) }
	deadline()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	var f feedTracker
	changed := c.console.wait()
	in := c.consoleInput(true, nil)
	deadline()
	if writeSSE(w, "snapshot", f.snapshot(in, c.coreURL)) != nil {
		return
	}
	flusher.Flush()
	rescan := time.NewTicker(consoleRescan)
	defer rescan.Stop()
	for {
		scan := false
		select {
		case <-ctx.Done():
			return
		case <-changed:
			// Let a burst finish, then send it as one delta.
			select {
			case <-time.After(consoleCoalesce):
			case <-ctx.Done():
				return
			}
		case <-rescan.C:
			scan = true
		}
		changed = c.console.wait()
		in = c.consoleInput(scan, in.processes)
		d, ok := f.delta(in)
		deadline()
		var err error
		if ok {
			err = writeSSE(w, "delta", d)
		} else if scan {
			_, err = fmt.Fprint(w, ": idle\n\n")
		}
		if err != nil {
			return
		}
		flusher.Flush()
	}
}

// writeSSE writes one event; JSON has no raw newlines, so one data line.
func writeSSE(w http.ResponseWriter, event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
	return err
}

// serveConsoleRecord answers one session's record as a JSON download.
func (c *Core) serveConsoleRecord(w http.ResponseWriter, r *http.Request) {
	s, err := c.session(r.PathValue("id"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	v := s.consoleView()
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="pedelec-%s.json"`, v.ID))
	w.Header().Set("Cache-Control", "no-store")
	data, _ := json.MarshalIndent(v, "", "  ")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(append(data, '\n'))
}
