//go:build linux

package approvals

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/peercred"
)

// agentRefusal finds the process holding the peer's end of the connection
// (its socket inode, which the peer check reads from /proc/net/tcp*, then
// the /proc/<pid>/fd that links to it) and refuses when it or an ancestor carries an agent variable. A
// process that cannot be found is refused too: the check fails closed.
func agentRefusal(peer, us *net.TCPAddr) string {
	inode, err := peercred.SocketInode(peer, us)
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
