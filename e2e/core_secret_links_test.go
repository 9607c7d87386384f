package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Links planted in the state directory where Core writes its secrets (an
// agent's session can write there, a backup can hold them) are never
// written through: with Core as root (as here, in CI), a link to a system
// file used to get the token written into it, and one to another user's
// file handed that user the approver token (issue 35).
func TestServeWritesNoSecretThroughAPlantedLink(t *testing.T) {
	testenv.SkipShort(t, "runs pedelec serve")
	state, outside := t.TempDir(), t.TempDir()
	victims := map[string]string{}
	for _, name := range []string{wire.CoreTokenFile + ".tmp", wire.ApproverTokenFile, wire.CoreKeyFile + ".new"} {
		victim := filepath.Join(outside, name)
		if err := os.WriteFile(victim, []byte("a system file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(state, name)); err != nil {
			t.Fatal(err)
		}
		victims[name] = victim
	}
	srv := testenv.ServeIn(t, testenv.FreeAddr(t), state, nil)
	for name, victim := range victims {
		if data, _ := os.ReadFile(victim); string(data) != "a system file\n" {
			t.Errorf("the target of the link at %s was written: %q", name, data)
		}
	}
	for _, name := range []string{wire.CoreTokenFile, wire.ApproverTokenFile, wire.CoreKeyFile} {
		info, err := os.Lstat(filepath.Join(state, name))
		if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want a regular file of mode 0600", name, info.Mode(), err)
		}
	}
	if strings.Contains(srv.Logs(), "panic") {
		t.Errorf("serve logged a panic:\n%s", srv.Logs())
	}
}
