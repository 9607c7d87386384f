package e2e

// `pedelec mcp` run by hand in a terminal waited on stdin without a word.
// The real binary under a real pseudo-terminal (util-linux's script) now
// says what it is, how a client starts it, and how to stop it.

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestMCPByHandSaysWhatItIs(t *testing.T) {
	testenv.SkipShort(t, "the real binary under a pseudo-terminal")
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("util-linux's script is needed to give pedelec mcp a terminal: %v", err)
	}
	bin := testenv.Binary(t)
	// script gives the command a pty for stdin and stdout; our pipe feeds
	// the pty, and what the command writes comes back on script's stdout.
	cmd := exec.Command(scriptBin, "-qefc", bin+" mcp --core-url http://"+testenv.FreeAddr(t)+" --state-dir "+t.TempDir(), "/dev/null")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	testenv.Await(t, 30*time.Second, "pedelec mcp's word on a terminal", func() bool {
		return strings.Contains(out.String(), "Press Ctrl-D to stop")
	})
	if got := out.String(); !strings.Contains(got, "MCP server on stdin/stdout") || !strings.Contains(got, "docs/mcp.md") {
		t.Errorf("pedelec mcp on a terminal says:\n%s", got)
	}
	// Ctrl-D on the terminal is end of input: the server stops.
	io.WriteString(stdin, "\x04")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("pedelec mcp did not stop on Ctrl-D; it printed:\n%s", out.String())
	}
}
