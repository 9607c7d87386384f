//go:build !linux

package provider

import "syscall"

// Processes are found by their environment only on Linux (/proc);
// elsewhere the process group is the whole cleanup.

func sweepTagged(tag string) {}

func signalTagged(tag string, sig syscall.Signal) int { return 0 }

func taggedPIDs(tag string) []int { return nil }

// CountTagged finds nothing: processes are found only on Linux.
func CountTagged(tag string) int { return 0 }
