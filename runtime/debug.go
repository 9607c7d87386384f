package runtime

import (
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// DebugPath serves pprof-style counts of what Core holds (goroutines, open
// files, sessions, pending calls, provider processes, work directories), so
// a soak can prove nothing leaks. Only Core's user can read it: the peer
// check admits only that user's processes, and the request must carry the
// Core token (the one /mcp takes), which Core writes, mode 0600, to
// wire.CoreTokenFile in its state directory. One token, not one per
// endpoint: both guard the same thing (this user's access to this Core).
const DebugPath = "/debug/pedelec/counts"

// DebugCounts is what DebugPath answers.
type DebugCounts struct {
	Goroutines       int `json:"goroutines"`
	OpenFiles        int `json:"openFiles"`
	Sessions         int `json:"sessions"`     // held in memory, ended ones included until forgotten
	LiveSessions     int `json:"liveSessions"` // not ended
	AttachedSessions int `json:"attachedSessions"`
	RunningTurns     int `json:"runningTurns"`
	PendingCalls     int `json:"pendingCalls"`
	LoggedEvents     int `json:"loggedEvents"`
	ProviderProcs    int `json:"providerProcesses"` // live processes carrying a session's PEDELEC_THREAD_ID
	WorkDirs         int `json:"workDirs"`
	// What Core has written to pages since it started: WebSocket messages
	// and the frames in them (a batched message carries several).
	PageMessages int64 `json:"pageMessages"`
	PageFrames   int64 `json:"pageFrames"`
	// The peer check: connections of other users closed as they were
	// accepted, and requests that passed it and reached a route (this one
	// included), so a test can prove no other user's request got through.
	PeerRefusedConnections int64 `json:"peerRefusedConnections"`
	AdmittedRequests       int64 `json:"admittedRequests"`
}

func (c *Core) serveDebugCounts(w http.ResponseWriter, r *http.Request) {
	if !c.hasCoreToken(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="pedelec"`)
		writeJSON(w, http.StatusUnauthorized, wire.AgentResult{Error: wire.Errorf(wire.CodeCoreTokenInvalid,
			"the debug endpoint needs \"Authorization: Bearer <token>\" with this Core's token; `pedelec serve` writes it to %s",
			filepath.Join(c.opts.StateDir, wire.CoreTokenFile))})
		return
	}
	writeJSON(w, http.StatusOK, c.Counts())
}

// Counts takes the numbers DebugPath reports.
func (c *Core) Counts() DebugCounts {
	messages, frames := c.pages.Counts()
	n := DebugCounts{Goroutines: goruntime.NumGoroutine(), PageMessages: messages, PageFrames: frames,
		PeerRefusedConnections: c.peers.Refused(), AdmittedRequests: c.peers.Admitted()}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		n.OpenFiles = len(fds)
	}
	if dirs, err := os.ReadDir(filepath.Join(c.opts.StateDir, "sessions")); err == nil {
		n.WorkDirs = len(dirs)
	}
	t := c.sessions.Counts()
	n.Sessions, n.LiveSessions, n.AttachedSessions = t.Sessions, t.Live, t.Attached
	n.RunningTurns, n.PendingCalls, n.LoggedEvents = t.RunningTurns, t.PendingCalls, t.LoggedEvents
	n.ProviderProcs = provider.CountOfSessions(t.IDs)
	return n
}
