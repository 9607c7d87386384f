package console

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const (
	// coalesce gathers a burst of changes (chat deltas arrive many a
	// second) into one delta; a call still shows well within a second.
	coalesce = 40 * time.Millisecond
	// rescan is how often the feed looks again at what changes without
	// an event: the provider processes.
	rescan = 2 * time.Second
	// writeTimeout bounds one write of the feed.
	writeTimeout = 10 * time.Second
)

// Tracker is one feed's memory of what it sent, so each delta carries
// only what changed: sessions by their Key, the processes and the
// approvals by their JSON.
type Tracker struct {
	version   int64
	sessions  map[string]Key
	processes string
	approvals string
}

// Input is the state a feed compares with what it sent.
type Input struct {
	Sessions  []Source // oldest first
	Processes []wire.ConsoleProcess
	Approvals *wire.ApprovalsState
}

// Gather reads what the feed shows from h; the processes only when asked
// (a walk of /proc), else prev.
func Gather(h Host, withProcesses bool, prev []wire.ConsoleProcess) Input {
	in := Input{Sessions: h.Sessions(), Processes: prev, Approvals: h.Approvals()}
	if withProcesses {
		in.Processes = processes(in.Sessions)
	}
	return in
}

// processes lists the live provider processes of sessions not ended.
func processes(all []Source) []wire.ConsoleProcess {
	ids := map[string]bool{}
	for _, s := range all {
		if !s.Key().Ended {
			ids[s.ID()] = true
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

// Snapshot is the whole state; it resets what the tracker has sent.
func (f *Tracker) Snapshot(in Input, coreURL string) wire.ConsoleSnapshot {
	f.version++
	f.sessions = make(map[string]Key, len(in.Sessions))
	snap := wire.ConsoleSnapshot{Version: f.version, CoreURL: coreURL, Sessions: []wire.ConsoleSession{}, Processes: in.Processes, Approvals: in.Approvals}
	for _, s := range in.Sessions {
		f.sessions[s.ID()] = s.Key()
		snap.Sessions = append(snap.Sessions, View(s.State()))
	}
	f.processes, f.approvals = jsonText(in.Processes), jsonText(in.Approvals)
	return snap
}

// Delta is what changed since the last snapshot or delta; ok is false
// when nothing did.
func (f *Tracker) Delta(in Input) (d wire.ConsoleDelta, ok bool) {
	live := make(map[string]bool, len(in.Sessions))
	for _, s := range in.Sessions {
		id := s.ID()
		live[id] = true
		key := s.Key()
		if sent, had := f.sessions[id]; had && sent == key {
			continue
		}
		f.sessions[id] = key
		d.Sessions = append(d.Sessions, View(s.State()))
	}
	for id := range f.sessions {
		if !live[id] {
			delete(f.sessions, id)
			d.Removed = append(d.Removed, id)
		}
	}
	slices.Sort(d.Removed)
	if p := jsonText(in.Processes); p != f.processes {
		f.processes = p
		procs := in.Processes
		d.Processes = &procs
	}
	if a := jsonText(in.Approvals); a != f.approvals && in.Approvals != nil {
		f.approvals = a
		d.Approvals = in.Approvals
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

// Snapshot is the console's whole state now.
func Snapshot(h Host) wire.ConsoleSnapshot {
	var f Tracker
	return f.Snapshot(Gather(h, true, nil), h.URL())
}

// serveFeed streams the console's state as Server-Sent Events: a
// "snapshot" first, then a "delta" soon after each change. A comment line
// every rescan keeps idle proxies and the browser's timers content.
func (s *Server) serveFeed(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.Stop, cancel) // Core stopping ends the stream
	defer stop()
	// A console that stops reading (a frozen tab) must not hold this
	// goroutine: each write gets writeTimeout.
	rc := http.NewResponseController(w)
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(writeTimeout)) }
	deadline()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	var f Tracker
	changed := s.Host.Changed()
	in := Gather(s.Host, true, nil)
	deadline()
	if writeSSE(w, "snapshot", f.Snapshot(in, s.Host.URL())) != nil {
		return
	}
	flusher.Flush()
	tick := time.NewTicker(rescan)
	defer tick.Stop()
	for {
		scan := false
		select {
		case <-ctx.Done():
			return
		case <-changed:
			// Let a burst finish, then send it as one delta.
			select {
			case <-time.After(coalesce):
			case <-ctx.Done():
				return
			}
		case <-tick.C:
			scan = true
		}
		changed = s.Host.Changed()
		in = Gather(s.Host, scan, in.Processes)
		d, ok := f.Delta(in)
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
