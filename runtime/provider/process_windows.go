//go:build windows

package provider

import (
	"os/exec"
	"syscall"
)

// Windows has no process groups in this sense; the child is killed alone.
func setProcessGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func groupAlive(cmd *exec.Cmd) bool { return false }
