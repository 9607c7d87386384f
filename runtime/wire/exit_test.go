package wire

import "testing"

// Every status the CLI uses is documented once, and means one thing.
func TestExitStatusesAreDistinct(t *testing.T) {
	seen := map[int]bool{}
	for _, s := range ExitStatuses {
		if seen[s.Status] || s.Meaning == "" {
			t.Errorf("exit status %d listed twice or without a meaning", s.Status)
		}
		seen[s.Status] = true
	}
	for _, s := range []int{ExitOK, ExitFailed, ExitUsage, ExitCoreUnreachable, ExitInterrupted, ExitTerminated} {
		if !seen[s] {
			t.Errorf("exit status %d is not in ExitStatuses", s)
		}
	}
}
