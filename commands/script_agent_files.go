package commands

import (
	"os"
	"path/filepath"
	"strings"
)

// runFileVerb gives the script agent what every real agent has: a shell
// that writes files in its working directory. Paths are relative to it
// (the session's work directory, where assets/ is), as a model's would be.
func runFileVerb(verb, rest string) string {
	first, second, _ := strings.Cut(rest, " ")
	var err error
	switch verb {
	case "write":
		if err = os.MkdirAll(filepath.Dir(first), 0o755); err == nil {
			err = os.WriteFile(first, []byte(second), 0o644)
		}
	case "mkdir":
		err = os.MkdirAll(first, 0o755)
	case "symlink":
		err = os.Symlink(first, strings.TrimSpace(second))
	case "rm":
		err = os.RemoveAll(first)
	case "ls":
		var entries []os.DirEntry
		if entries, err = os.ReadDir(first); err == nil {
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name()
			}
			return strings.Join(names, " ")
		}
	}
	if err != nil {
		return verb + " failed: " + err.Error()
	}
	return verb + " ok: " + first
}
