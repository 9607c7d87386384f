package e2e

// The companion commands found Core only at the default address: after
// `pedelec serve --addr 127.0.0.1:7181` they needed --core-url as well as
// --state-dir, and "did not answer" gave no next step. Core now records
// its address in its state directory; given that directory alone, every
// companion reaches it, and when nothing answers they say what to do.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// companion runs a companion command with only --state-dir, and none of
// Core's environment (PEDELEC_CORE_URL would decide for it).
func companion(t *testing.T, stateDir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(testenv.Binary(t), append(args[:1:1], append([]string{"--state-dir", stateDir}, args[1:]...)...)...)
	cmd.Env = envWithoutPedelec()
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

func envWithoutPedelec() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PEDELEC_") {
			env = append(env, kv)
		}
	}
	return env
}

func TestCompanionCommandsFindCoreFromItsStateDir(t *testing.T) {
	testenv.SkipShort(t, "the real binary")
	core := testenv.Serve(t, nil) // a free port, never 7077, and its own state dir
	if data, err := os.ReadFile(filepath.Join(core.StateDir, "core-url")); err != nil || strings.TrimSpace(string(data)) != core.URL {
		t.Fatalf("state dir's core-url: %q, %v; want %s", data, err, core.URL)
	}
	if out, code := companion(t, core.StateDir, "approvals", "--format", "json"); code != 0 || !strings.Contains(out, `"origins"`) {
		t.Errorf("approvals --state-dir: exit %d\n%s", code, out)
	}
	// A decision reaches Core too: revoking an origin never approved is
	// Core's own answer, not "did not answer".
	if out, code := companion(t, core.StateDir, "revoke", "http://never.test"); code == wire.ExitCoreUnreachable || strings.Contains(out, "did not answer") {
		t.Errorf("revoke --state-dir: exit %d\n%s", code, out)
	}
	// pedelec mcp finds Core, and so lists a page's tools.
	p := wspage.Dial(t, core.WSURL, "")
	counterPage(p)
	mcpSession(t, p)
	mcp := startPedelecMCPWith(t, []string{"--state-dir", core.StateDir}, envWithoutPedelec()...)
	testenv.Await(t, 15*time.Second, "the page's tools through pedelec mcp --state-dir", func() bool {
		return len(mcp.toolNames(t)) > 0
	})
	p.Close()

	// With Core stopped, the message names the address, where it came from
	// and the next step.
	core.Stop(t)
	out, code := companion(t, core.StateDir, "approvals")
	if code != wire.ExitCoreUnreachable {
		t.Errorf("approvals with Core stopped: exit %d, want %d\n%s", code, wire.ExitCoreUnreachable, out)
	}
	for _, want := range []string{core.URL, filepath.Join(core.StateDir, "core-url"), "Start 'pedelec serve'", "--state-dir"} {
		if !strings.Contains(out, want) {
			t.Errorf("approvals with Core stopped does not say %q:\n%s", want, out)
		}
	}
}
