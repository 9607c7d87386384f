//go:build !linux

package provider

// Processes are found by their environment only on Linux (/proc);
// elsewhere the process group is the whole cleanup.

func sweepTagged(tag string) {}

func termTaggedOutside(tag string, pgid int) {}

func taggedPIDs(tag string) []int { return nil }

// CountTagged finds nothing: processes are found only on Linux.
func CountTagged(tag string) int { return 0 }
