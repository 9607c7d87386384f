//go:build linux

package peercred

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

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

// What a new connection's peer check costs Core: go test ./runtime/peercred -run
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

// A client that sends its request and closes at once leaves a socket the
// kernel no longer ties to any process: a time-wait entry (or an orphan),
// which both sock_diag and /proc/net/tcp report as uid 0. Its owner is
// unknown, never root (issue 20: another user got in as root this way).
func TestSocketOwnerOfClosedClientIsUnknown(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skipf("SKIPPED: no %s on this machine: %v", addr, err)
			}
			defer l.Close()
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
			c.Close()
			s, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// Reading to EOF means the client's FIN arrived: its socket is
			// now closing, detached from the process that made it.
			s.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadAll(s); err != nil {
				t.Fatal(err)
			}
			peer, us := s.RemoteAddr().(*net.TCPAddr), s.LocalAddr().(*net.TCPAddr)
			if uid, err := sockDiagOwner(peer, us); err == nil {
				t.Errorf("sockDiagOwner of a closed client = uid %d, want an error", uid)
			}
			if uid, err := procSocketOwner(peer, us); err == nil {
				t.Errorf("procSocketOwner of a closed client = uid %d, want an error", uid)
			}
			if uid, err := socketOwner(peer, us); err == nil {
				t.Errorf("socketOwner of a closed client = uid %d, want an error", uid)
			}
		})
	}
}

// A client that resets its connection before Core accepts it leaves no
// socket behind, and neither does the other end of a tuple the kernel's
// lookup answers with a listener. Once sock_diag has answered, its "no
// such socket" is the answer: the /proc tables cannot know more, and
// reading them costs a line per socket on the machine. Another user who
// reset connections in a loop made Core read them for each one, and a
// 5-second loop kept Core's own user waiting 37 s for an answer.
func TestSocketOwnerOfGoneSocketReadsNoProcTable(t *testing.T) {
	peer, us := loopbackPair(t, "127.0.0.1:0")
	if _, err := sockDiagOwner(peer, us); err != nil {
		t.Skipf("SKIPPED: sock_diag does not answer here: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	reset := c.LocalAddr().(*net.TCPAddr)
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
	listener := l.Addr().(*net.TCPAddr)
	gone := &net.TCPAddr{IP: peer.IP, Port: us.Port}
	for _, tc := range []struct {
		name     string
		peer, us *net.TCPAddr
	}{{"reset before accept", reset, listener}, {"a listener's port", gone, gone}} {
		t.Run(tc.name, func(t *testing.T) {
			// A table that would name root as the tuple's owner.
			table := filepath.Join(t.TempDir(), "tcp")
			line := fmt.Sprintf("   0: %s %s 01 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000092a1629a 20 4 30 10 -1\n",
				procAddr(tc.peer), procAddr(tc.us))
			if err := os.WriteFile(table, []byte("  sl  local_address rem_address\n"+line), 0o600); err != nil {
				t.Fatal(err)
			}
			defer func(old []string) { procSocketTables = old }(procSocketTables)
			procSocketTables = []string{table}
			if uid, err := socketOwner(tc.peer, tc.us); err == nil {
				t.Errorf("socketOwner of a socket sock_diag does not find = uid %d from the /proc table, want an error", uid)
			}
		})
	}
}

// procAddr is an IPv4 address as /proc/net/tcp writes it.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], a.Port)
}

// A client's IPv6 socket connected to ::ffff:127.0.0.1 is an IPv4
// connection to Core. sock_diag finds it by the IPv4 addresses Core sees,
// and answers with the socket's own IPv6 form of them: the same socket,
// whose owner is known without reading /proc.
func TestSockDiagOwnerOfV4MappedClient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("SKIPPED: no IPv6 sockets here: %v", err)
	}
	client := os.NewFile(uintptr(fd), "v6 client")
	defer client.Close()
	sa := &syscall.SockaddrInet6{Port: l.Addr().(*net.TCPAddr).Port}
	copy(sa.Addr[:], net.ParseIP("::ffff:127.0.0.1").To16())
	if err := syscall.Connect(fd, sa); err != nil {
		t.Skipf("SKIPPED: an IPv6 socket cannot reach IPv4 here: %v", err)
	}
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	uid, err := sockDiagOwner(s.RemoteAddr().(*net.TCPAddr), s.LocalAddr().(*net.TCPAddr))
	if err != nil || uid != os.Getuid() {
		t.Errorf("sockDiagOwner of a v4-mapped client = uid %d, %v; want %d", uid, err, os.Getuid())
	}
}
