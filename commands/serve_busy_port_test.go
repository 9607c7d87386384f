package commands

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Issue 23: a busy port is ADDR_IN_USE naming the port and what to do,
// not the raw bind error, and `pedelec serve` fails before it makes (or
// opens) the state directory.
func TestServeBusyPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	state := filepath.Join(t.TempDir(), "not-yet")
	var out, errOut bytes.Buffer
	code := Main([]string{"pedelec", "serve", "--addr", taken.Addr().String(), "--state-dir", state}, strings.NewReader(""), &out, &errOut)
	msg := errOut.String()
	if code != wire.ExitUsage {
		t.Errorf("exit %d, want %d", code, wire.ExitUsage)
	}
	for _, want := range []string{string(wire.CodeAddrInUse), fmt.Sprintf("port %d", port), "--addr 127.0.0.1:0", "/healthz"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "bind: address already in use") {
		t.Errorf("the raw bind error instead of what to do:\n%s", msg)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state directory was made anyway (%v)", err)
	}
}
