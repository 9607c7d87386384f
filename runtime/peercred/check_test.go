package peercred

import (
	"net"
	"os"
	"testing"
)

// The peer check finds this very process as the owner of its own loopback
// connection.
func TestSocketOwnerIsThisUser(t *testing.T) {
	if !supported {
		t.Skip("no peer check on this platform")
	}
	peer, us := loopbackPair(t, "127.0.0.1:0")
	uid, err := socketOwner(peer, us)
	if err != nil || uid != os.Getuid() {
		t.Fatalf("socketOwner = %d, %v; want %d", uid, err, os.Getuid())
	}
}

// loopbackPair connects a client to a listener on addr and returns the
// client's socket's two ends: its own address and the server's.
func loopbackPair(t testing.TB, addr string) (local, remote *net.TCPAddr) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("SKIPPED: no %s on this machine: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.RemoteAddr().(*net.TCPAddr), s.LocalAddr().(*net.TCPAddr)
}
