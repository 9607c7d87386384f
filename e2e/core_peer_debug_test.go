package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The debug endpoint (issue 14) is behind the peer check (issue 8) and the
// Core token (issue 13): another user is refused even with the real token,
// Core's own user needs the token from <state-dir>/core-token.
func TestPeerCheckCoversDebugEndpoint(t *testing.T) {
	prefix := asNobody(t)
	if _, err := exec.LookPath("curl"); err != nil {
		testenv.Need(t, "curl", "the peer test uses curl")
	}
	srv := testenv.Serve(t, nil)
	token, err := os.ReadFile(filepath.Join(srv.StateDir, wire.CoreTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	get := func(prefix []string, bearer string) string {
		args := append(append([]string{}, prefix...), "curl", "-s", "-i", "--max-time", "10")
		if bearer != "" {
			args = append(args, "-H", "Authorization: Bearer "+bearer)
		}
		out, err := exec.Command(args[0], append(args[1:], srv.URL+runtime.DebugPath)...).Output()
		if err != nil {
			t.Fatalf("curl: %v %s", err, out)
		}
		return string(out)
	}
	real := strings.TrimSpace(string(token))
	if out := get(prefix, real); !strings.Contains(out, " 403 ") || !strings.Contains(out, string(wire.CodePeerNotAllowed)) {
		t.Fatalf("debug endpoint as uid %s with the real token:\n%s", nobody, out)
	}
	if out := get(nil, ""); !strings.Contains(out, " 401 ") || !strings.Contains(out, string(wire.CodeCoreTokenInvalid)) {
		t.Fatalf("debug endpoint without the token:\n%s", out)
	}
	if out := get(nil, real); !strings.HasPrefix(out, "HTTP/1.1 200") || !strings.Contains(out, `"liveSessions"`) {
		t.Fatalf("debug endpoint with the Core token:\n%s", out)
	}
}
