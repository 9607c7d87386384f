//go:build linux

package runtime

import (
	"net"
	"os"
	"testing"
)

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

// The kernel's socket diagnostics name the same owner as the /proc tables,
// over IPv4 and IPv6 loopback.
func TestSockDiagOwnerAgreesWithProc(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			peer, us := loopbackPair(t, addr)
			diag, err := sockDiagOwner(peer, us)
			if err != nil {
				t.Fatalf("sockDiagOwner: %v", err)
			}
			proc, err := procSocketOwner(peer, us)
			if err != nil {
				t.Fatalf("procSocketOwner: %v", err)
			}
			if diag != proc || diag != os.Getuid() {
				t.Errorf("sock_diag says uid %d, /proc says %d; this process is %d", diag, proc, os.Getuid())
			}
		})
	}
}

// A tuple no socket has is an error, not uid 0 (root).
func TestSockDiagOwnerNoSuchSocket(t *testing.T) {
	peer, us := loopbackPair(t, "127.0.0.1:0")
	gone := &net.TCPAddr{IP: peer.IP, Port: us.Port}
	if uid, err := sockDiagOwner(gone, gone); err == nil {
		t.Fatalf("sockDiagOwner of no socket = %d, want an error", uid)
	}
	if uid, err := socketOwner(gone, gone); err == nil {
		t.Fatalf("socketOwner of no socket = %d, want an error", uid)
	}
}

// What a new connection's peer check costs Core: go test ./runtime -run
// '^$' -bench SocketOwner -benchmem.
func BenchmarkSocketOwner(b *testing.B) {
	peer, us := loopbackPair(b, "127.0.0.1:0")
	for _, c := range []struct {
		name string
		fn   func(peer, us *net.TCPAddr) (int, error)
	}{{"sock_diag", sockDiagOwner}, {"proc", procSocketOwner}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.fn(peer, us); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
