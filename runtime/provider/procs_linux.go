//go:build linux

package provider

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// envProcesses lists this user's live (not zombie) processes, other than
// this one, with an environment entry (KEY=VALUE) that match accepts: the
// one scan of /proc behind the turn's sweep and the start-up stop of
// leftovers. Processes are matched on their environment, never by name,
// and another user's are never listed, so never signalled.
func envProcesses(match func(entry []byte) bool) []int {
	uid := os.Getuid()
	self := os.Getpid()
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !anyEntry(env, match) {
			continue
		}
		// The owner is asked only of a match: most processes are not one,
		// and the debug counts walk /proc once per session.
		var st syscall.Stat_t
		if syscall.Stat(dir, &st) != nil || int(st.Uid) != uid {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil && isZombieStat(stat) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// anyEntry reports whether match accepts one of environ's NUL-separated entries.
func anyEntry(environ []byte, match func([]byte) bool) bool {
	for len(environ) > 0 {
		var entry []byte
		entry, environ, _ = bytes.Cut(environ, []byte{0})
		if match(entry) {
			return true
		}
	}
	return false
}

// isZombieStat reads the state field of /proc/<pid>/stat ("pid (comm) S ...").
func isZombieStat(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}
