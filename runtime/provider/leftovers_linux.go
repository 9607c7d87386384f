//go:build linux

package provider

import (
	"bytes"
	"syscall"
	"time"
)

// StopLeftovers stops every process of this user whose environment carries
// a PEDELEC_THREAD_ID in ids: SIGTERM, a short grace, then SIGKILL. Core
// calls it at start-up with the sessions of its state directory, whose
// processes a killed Core could not stop. Processes are matched on that
// environment entry only, never by name, and only the caller's own are
// touched. One pass over /proc serves every id.
func StopLeftovers(ids map[string]bool) int {
	pids := leftoverPIDs(ids)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(leftoverGrace)
	for len(pids) > 0 && len(leftoverPIDs(ids)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(pids) > 0 {
		for _, pid := range leftoverPIDs(ids) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return len(pids)
}

// CountOfSessions is how many live processes of this user carry a
// PEDELEC_THREAD_ID in ids: one walk of /proc for every session, so the
// debug counts cost the same with 1 session as with 100 (a walk per
// session missed its deadline under load, issue 20's churn test).
func CountOfSessions(ids map[string]bool) int { return len(leftoverPIDs(ids)) }

// leftoverPIDs lists this user's live processes whose PEDELEC_THREAD_ID is in ids.
func leftoverPIDs(ids map[string]bool) []int {
	if len(ids) == 0 {
		return nil
	}
	key := []byte("PEDELEC_THREAD_ID=")
	return envProcesses(func(entry []byte) bool {
		id, ok := bytes.CutPrefix(entry, key)
		return ok && ids[string(id)]
	})
}
