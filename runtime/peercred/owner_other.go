//go:build !linux

package peercred

import (
	"errors"
	"net"
)

// supported is false where Pedelec has no way to learn which user
// owns a loopback connection (macOS, Windows, the BSDs): Core says so at
// start-up and accepts the connection, as docs/security.md explains.
const supported = false

func socketOwner(peer, us *net.TCPAddr) (int, error) {
	return -1, errors.New("this platform cannot tell which user owns a connection")
}
