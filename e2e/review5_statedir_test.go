package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A restored session's session-id that is not a file (a FIFO here; from
// a backup restored as root, a device node, which opening alone can act
// on: a watchdog, a tape, a modem line) is never opened: Core looks at what
// is there before it opens it. The FIFO tells whether it was opened: a
// writer waiting on it is let through by any reader.
func TestReview5RestoredSessionIDThatIsNoFileIsNotOpened(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	for _, asUser := range []bool{false, true} {
		name := "Core as root"
		if asUser {
			name = "Core as a normal user"
		}
		t.Run(name, func(t *testing.T) {
			if !review5AsUser(t, asUser) {
				return
			}
			srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin})
			p := wspage.Dial(t, srv.WSURL, pageOrigin)
			keep := false
			p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
			p.Close()
			srv.Stop(t)
			dirs, _ := filepath.Glob(filepath.Join(srv.StateDir, "sessions", "*"))
			if len(dirs) != 1 {
				t.Fatalf("session directories %v, want one", dirs)
			}
			fifo := filepath.Join(dirs[0], "session-id")
			os.Remove(fifo)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			opened := make(chan struct{})
			go func() {
				// Blocks until someone opens the FIFO to read it.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				close(opened)
			}()
			srv.Restart(t) // healthy once the restored sessions are back
			select {
			case <-opened:
				t.Fatalf("Core opened the FIFO at a restored session's session-id")
			case <-time.After(time.Second): // the writer's wake-up, had Core opened it at start
			}
			// Let the writer go: Core replaced the FIFO, so open the node
			// the writer waits on, if it is still there, or it stays.
			if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
	}
}

// FIFOs where Core writes an agent's settings (the name and its temporary
// name): Core never opens them to write (it would wait for a reader), it
// replaces them.
func TestReview5AgentSettingsFIFOsAreReplaced(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	for _, name := range []string{"settings.json", "settings.json.tmp"} {
		t.Run(name, func(t *testing.T) {
			var at string
			plantedAgentHome(t, "qwen", func(dir string) {
				os.MkdirAll(filepath.Join(dir, "qwen", ".qwen"), 0o700)
				at = filepath.Join(dir, "qwen", ".qwen", name)
				if err := syscall.Mkfifo(at, 0o600); err != nil {
					t.Fatal(err)
				}
			})
			settings := filepath.Join(filepath.Dir(at), "settings.json")
			if fi, err := os.Lstat(settings); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("settings.json after the turn: %v %v", fi, err)
			}
		})
	}
}
