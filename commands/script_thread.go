package commands

import (
	"encoding/json"
	"os"
	"strings"
)

// scriptThread is the script agent's memory of one thread: the messages of
// its earlier turns, one JSON string a line in the working directory, the
// way a real agent CLI keeps a thread it can resume.
type scriptThread string

// validThreadID is ^[A-Za-z0-9_-]{1,64}$, checked by hand: as a package
// regexp its {1,64} compiled into 64 nested copies at every process start
// (0.9 ms of init and deep stack growth in each `pedelec tool-call`).
func validThreadID(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func (t scriptThread) file() string {
	if !validThreadID(string(t)) {
		return ""
	}
	return ".script-agent-" + string(t) + ".jsonl"
}

// messages are the earlier turns' messages, oldest first, each on one line.
func (t scriptThread) messages(work *os.Root) []string {
	if t.file() == "" {
		return nil
	}
	data, err := work.ReadFile(t.file())
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var m string
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, strings.Join(strings.Fields(m), " "))
		}
	}
	return out
}

func (t scriptThread) add(work *os.Root, message string) {
	if t.file() == "" {
		return
	}
	f, err := work.OpenFile(t.file(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(message)
	f.Write(append(line, '\n'))
}
