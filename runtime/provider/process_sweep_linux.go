//go:build linux

package provider

import (
	"syscall"
	"time"
)

// sweepTagged kills every process whose environment holds tag (an exact
// KEY=VALUE entry such as PEDELEC_THREAD_ID=s_…), until none is left or
// a second has passed. The process group kill catches the usual case; this
// catches a child that left the group (setsid, a daemonizing tool), so no
// agent command outlives its turn. Only this user's processes are seen.
func sweepTagged(tag string) {
	deadline := time.Now().Add(time.Second)
	for signalTagged(tag, syscall.SIGKILL) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// signalTagged sends sig to every live process carrying tag and says how many.
func signalTagged(tag string, sig syscall.Signal) int {
	pids := taggedPIDs(tag)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	return len(pids)
}

// termTaggedOutside sends SIGTERM to every live process carrying tag that
// is outside process group pgid. Those inside were just sent it with the
// group, and must not get it twice: bash, for one, kills itself on the spot
// when a terminating signal arrives while it runs its EXIT trap for the
// first, so the trap's cleanup (pyenv's lock) would be cut short.
func termTaggedOutside(tag string, pgid int) {
	for _, pid := range taggedPIDs(tag) {
		if g, err := syscall.Getpgid(pid); err == nil && g != pgid {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

// taggedPIDs lists this user's live processes, other than this one, whose
// environment holds tag.
func taggedPIDs(tag string) []int {
	if tag == "" {
		return nil
	}
	return envProcesses(func(entry []byte) bool { return string(entry) == tag })
}

// CountTagged is how many live processes carry tag.
func CountTagged(tag string) int { return len(taggedPIDs(tag)) }
