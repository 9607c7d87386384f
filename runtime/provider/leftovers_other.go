//go:build !linux

package provider

// StopLeftovers finds processes by their environment only on Linux (/proc).
func StopLeftovers(ids map[string]bool) int { return 0 }

// CountTagged finds processes by their environment only on Linux (/proc).
func CountTagged(tag string) int { return 0 }
