//go:build linux

package provider

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// sweepTagged kills every process whose environment holds tag (an exact
// KEY=VALUE entry such as PEDELEC_THREAD_ID=s_…), until none is left or
// a second has passed. The process group kill catches the usual case; this
// catches a child that left the group (setsid, a daemonizing tool), so no
// agent command outlives its turn. Only processes this user may read are seen.
func sweepTagged(tag string) {
	deadline := time.Now().Add(time.Second)
	for signalTagged(tag, syscall.SIGKILL) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// signalTagged sends sig to every live process carrying tag and says how many.
func signalTagged(tag string, sig syscall.Signal) int {
	pids := taggedPIDs(tag)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	return len(pids)
}

// taggedPIDs lists the live (not zombie) processes, other than this one,
// whose environment holds tag.
func taggedPIDs(tag string) []int {
	if tag == "" {
		return nil
	}
	needle := append([]byte(tag), 0)
	self := os.Getpid()
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !(bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil && isZombieStat(stat) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// isZombieStat reads the state field of /proc/<pid>/stat ("pid (comm) S ...").
func isZombieStat(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}
