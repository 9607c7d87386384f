//go:build !linux

package provider

// SessionProcess is one live process that carries a session's
// PEDELEC_THREAD_ID.
type SessionProcess struct {
	PID       int
	SessionID string
	Command   string
}

// SessionProcesses finds nothing: processes are found only on Linux.
func SessionProcesses(ids map[string]bool) []SessionProcess { return nil }
