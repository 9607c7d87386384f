package peercred

import (
	"errors"
	"net"
)

// ServerOwner is the uid of the process that holds the other end of a
// client's TCP connection on loopback: whoever listens on the port it
// dialed. A client that is about to trust what answers (runtime/coreauth)
// names it when the answer is wrong. Where the system cannot tell (see
// socketOwner), the error says so.
func ServerOwner(conn net.Conn) (int, error) {
	remote, ok := conn.RemoteAddr().(*net.TCPAddr)
	local, ok2 := conn.LocalAddr().(*net.TCPAddr)
	if !ok || !ok2 || !remote.IP.IsLoopback() {
		return -1, errors.New("not a loopback TCP connection")
	}
	// The server's socket has the client's remote end as its local one.
	return socketOwner(remote, local)
}
