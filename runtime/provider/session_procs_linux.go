//go:build linux

package provider

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SessionProcess is one live process that carries a session's
// PEDELEC_THREAD_ID: a provider CLI, or something it started.
type SessionProcess struct {
	PID       int
	SessionID string
	Command   string // its command line, shortened
}

// SessionProcesses lists this user's live processes whose
// PEDELEC_THREAD_ID is in ids, for the console: the same one walk of /proc
// as the debug counts, then each match's id and command line.
func SessionProcesses(ids map[string]bool) []SessionProcess {
	key := []byte("PEDELEC_THREAD_ID=")
	var out []SessionProcess
	for _, pid := range leftoverPIDs(ids) {
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil {
			continue // it ended since the walk
		}
		var id string
		anyEntry(env, func(entry []byte) bool {
			v, ok := bytes.CutPrefix(entry, key)
			if ok {
				id = string(v)
			}
			return ok
		})
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		out = append(out, SessionProcess{PID: pid, SessionID: id, Command: shortCommand(cmdline)})
	}
	return out
}

// shortCommand is a NUL-separated command line as one line of at most 200
// characters.
func shortCommand(cmdline []byte) string {
	s := strings.TrimSpace(strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
