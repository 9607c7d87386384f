package commands

import (
	"strings"
	"testing"
)

// The script agent keeps a thread only under a file-name-safe id.
func TestScriptThreadFile(t *testing.T) {
	for id, ok := range map[string]bool{
		"t_1-A":                 true,
		strings.Repeat("a", 64): true,
		"":                      false,
		strings.Repeat("a", 65): false,
		"../x":                  false,
		"a b":                   false,
		"é":                     false,
	} {
		if got := scriptThread(id).file() != ""; got != ok {
			t.Errorf("thread %q: file kept = %v, want %v", id, got, ok)
		}
	}
}
