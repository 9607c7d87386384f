//go:build linux

package approvals

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// agentRefusal finds the process holding the peer's end of the connection
// (its socket inode in /proc/net/tcp*, then the /proc/<pid>/fd that links
// to it) and refuses when it or an ancestor carries an agent variable. A
// process that cannot be found is refused too: the check fails closed.
func agentRefusal(peer, us *net.TCPAddr) string {
	inode, err := socketInode(peer, us)
	if err != nil {
		return "Core could not tell which process sent the request: " + err.Error()
	}
	pid := socketHolder(inode)
	if pid == 0 {
		return "Core could not find the process that sent the request"
	}
	self := os.Getpid()
	for p, depth := pid, 0; p > 1 && p != self && depth < 64; depth++ {
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p))
		for entry := range bytes.SplitSeq(env, []byte{0}) {
			if agentEntry(entry) {
				return fmt.Sprintf("it comes from a process an agent runs (pid %d, whose environment carries %s)", pid, bytes.SplitN(entry, []byte("="), 2)[0])
			}
		}
		p = parentPID(p)
	}
	return ""
}

// socketInode reads the inode of the socket whose local end is peer and
// remote end us.
func socketInode(peer, us *net.TCPAddr) (uint64, error) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan()
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			l, ok1 := parseProcAddr(fields[1])
			r, ok2 := parseProcAddr(fields[2])
			if !ok1 || !ok2 || l.Port != peer.Port || !l.IP.Equal(peer.IP) || r.Port != us.Port {
				continue
			}
			inode, err := strconv.ParseUint(fields[9], 10, 64)
			f.Close()
			if err != nil || inode == 0 {
				return 0, fmt.Errorf("the socket %s has no owner", peer)
			}
			return inode, nil
		}
		f.Close()
	}
	return 0, fmt.Errorf("no socket %s -> %s", peer, us)
}

// parseProcAddr reads "0100007F:1F90" (IPv4) or its 32-hex-digit IPv6 form;
// the kernel writes each 32-bit word in host (little-endian) order.
func parseProcAddr(s string) (*net.TCPAddr, bool) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return nil, false
	}
	raw, err := hex.DecodeString(host)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, false
	}
	for i := 0; i+4 <= len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return nil, false
	}
	return &net.TCPAddr{IP: net.IP(raw), Port: int(p)}, true
}

// socketHolder is the pid of a process of this user with a descriptor on
// the socket inode, or 0.
func socketHolder(inode uint64) int {
	target := fmt.Sprintf("socket:[%d]", inode)
	dirs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, dir := range dirs {
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && link == target {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
				return pid
			}
		}
	}
	return 0
}

// parentPID reads the ppid field of /proc/<pid>/stat ("pid (comm) S ppid ...").
func parentPID(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
