//go:build linux

package runtime

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

const peerCheckSupported = true

// socketOwner finds the uid owning the TCP socket whose local end is peer
// and whose remote end is us (the client's socket is on this machine
// because the peer is on loopback): from the kernel's socket diagnostics,
// or, where they cannot answer (a kernel or sandbox without them, a
// v4-mapped socket on a dual-stack listener), from /proc/net/tcp and
// /proc/net/tcp6.
func socketOwner(peer, us *net.TCPAddr) (int, error) {
	if uid, err := sockDiagOwner(peer, us); err == nil {
		return uid, nil
	}
	return procSocketOwner(peer, us)
}

// procSocketOwner is socketOwner from the /proc tables.
func procSocketOwner(peer, us *net.TCPAddr) (int, error) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		uid, found, err := scanSocketTable(table, peer, us)
		if err != nil {
			return -1, err
		}
		if found {
			return uid, nil
		}
	}
	return -1, fmt.Errorf("no socket %s -> %s in /proc/net/tcp or tcp6", peer, us)
}

func scanSocketTable(path string, peer, us *net.TCPAddr) (uid int, found bool, err error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return -1, false, nil // no IPv6 in this kernel
	}
	if err != nil {
		return -1, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		local, ok1 := parseProcAddr(fields[1])
		remote, ok2 := parseProcAddr(fields[2])
		if !ok1 || !ok2 || local.Port != peer.Port || !local.IP.Equal(peer.IP) {
			continue
		}
		if remote.Port != us.Port || !(remote.IP.Equal(us.IP) || us.IP.IsUnspecified()) {
			continue
		}
		n, err := strconv.Atoi(fields[7])
		if err != nil {
			continue
		}
		return n, true, nil
	}
	return -1, false, sc.Err()
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
