//go:build linux

package peercred

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// supported: Linux names the owner of a loopback socket (sock_diag, /proc/net/tcp).
const supported = true

// errSocketDetached is the kernel's answer for a client socket no process
// holds any more: a time-wait entry or an orphan of a closed socket. Both
// sock_diag and /proc/net/tcp give such a socket uid 0 and inode 0; the uid
// is a placeholder, not root, so the owner is unknown (issue 20).
var errSocketDetached = errors.New("the client's socket is closed or closing, no longer held by any process, so its owner cannot be known")

// socketOwner finds the uid owning the TCP socket whose local end is peer
// and whose remote end is us (the client's socket is on this machine
// because the peer is on loopback): from the kernel's socket diagnostics,
// or, where they cannot answer (a kernel or sandbox without them), from
// /proc/net/tcp and /proc/net/tcp6. Only a socket attached to a file (inode != 0) has an
// owner: the uid the kernel reports for any other is not its owner's.
func socketOwner(peer, us *net.TCPAddr) (int, error) {
	uid, err := sockDiagOwner(peer, us)
	if err == nil || errors.Is(err, errSocketDetached) || errors.Is(err, errNoSuchSocket) {
		return uid, err
	}
	return procSocketOwner(peer, us)
}

// errNoSuchSocket is sock_diag's answer for a tuple no socket has: the
// client reset its connection before Core accepted it, say. /proc would
// not know more, and reading it costs a line per socket on the machine for
// each such connection, which another user can make at will: a loop of
// them kept Core's accept loop seconds behind its own user (issue 20
// review). So once sock_diag is known to answer, this answer is final.
var errNoSuchSocket = errors.New("the client's socket no longer exists, so its owner cannot be known")

// procSocketTables are the /proc tables procSocketOwner reads.
var procSocketTables = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// procSocketOwner is socketOwner from the /proc tables.
func procSocketOwner(peer, us *net.TCPAddr) (int, error) {
	e, err := procSocketOf(peer, us)
	if err != nil {
		return -1, err
	}
	return e.uid, nil
}

// SocketInode is the inode of the client's socket whose local end is peer
// and whose remote end is us, from the /proc tables: what finds the
// process that holds it (/proc/<pid>/fd links to "socket:[inode]").
func SocketInode(peer, us *net.TCPAddr) (uint64, error) {
	e, err := procSocketOf(peer, us)
	if err != nil {
		return 0, err
	}
	return e.inode, nil
}

// procSocketOf finds the socket peer -> us in /proc/net/tcp and tcp6; one
// no process holds is errSocketDetached.
func procSocketOf(peer, us *net.TCPAddr) (procSocket, error) {
	for _, table := range procSocketTables {
		e, found, err := scanSocketTable(table, peer, us)
		if err != nil || found {
			return e, err
		}
	}
	return procSocket{}, fmt.Errorf("no socket %s -> %s in /proc/net/tcp or tcp6", peer, us)
}

func scanSocketTable(path string, peer, us *net.TCPAddr) (e procSocket, found bool, err error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return e, false, nil // no IPv6 in this kernel
	}
	if err != nil {
		return e, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		e, ok := parseProcSocketLine(sc.Text())
		if !ok || e.local.Port != peer.Port || !e.local.IP.Equal(peer.IP) {
			continue
		}
		if e.remote.Port != us.Port || !(e.remote.IP.Equal(us.IP) || us.IP.IsUnspecified()) {
			continue
		}
		if e.inode == 0 {
			return e, true, errSocketDetached
		}
		return e, true, nil
	}
	return procSocket{}, false, sc.Err()
}

// procSocket is one line of /proc/net/tcp or tcp6.
type procSocket struct {
	local, remote *net.TCPAddr
	uid           int
	inode         uint64 // 0 for a socket no process holds (time-wait, orphan)
}

// parseProcSocketLine reads one line of /proc/net/tcp:
//
//	sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
func parseProcSocketLine(line string) (procSocket, bool) {
	fields := strings.Fields(line)
	if len(fields) < 10 {
		return procSocket{}, false
	}
	local, ok1 := parseProcAddr(fields[1])
	remote, ok2 := parseProcAddr(fields[2])
	uid, err1 := strconv.ParseUint(fields[7], 10, 32)
	inode, err2 := strconv.ParseUint(fields[9], 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return procSocket{}, false
	}
	return procSocket{local: local, remote: remote, uid: int(uid), inode: inode}, true
}

// parseProcAddr reads "0100007F:1F90": the address as 32-bit words in host
// (little-endian on every platform Pedelec ships for) order, then the port
// in hex.
func parseProcAddr(s string) (*net.TCPAddr, bool) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return nil, false
	}
	raw, err := hex.DecodeString(hexIP)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		ip[i], ip[i+1], ip[i+2], ip[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return nil, false
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, true
}
