//go:build !linux

package approvals

import "net"

// agentRefusal cannot find the peer's process here: only the CLI's own
// check of its environment stands (docs/security.md says so).
func agentRefusal(peer, us *net.TCPAddr) string { return "" }
