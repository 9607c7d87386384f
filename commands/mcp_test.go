package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Serving one session takes both its id and its secret: half of them is a
// usage error that says what is missing, not a server that fails later.
func TestMCPSessionNeedsIDAndSecret(t *testing.T) {
	t.Setenv(wire.EnvSecret, "")
	t.Setenv(wire.EnvThreadID, "")
	var out, errOut bytes.Buffer
	code := Main([]string{"pedelec", "mcp", "--thread-id", "s_x"}, strings.NewReader(""), &out, &errOut)
	if code != wire.ExitUsage || !strings.Contains(errOut.String(), wire.EnvSecret) {
		t.Fatalf("exit %d, stderr %q; want a usage error naming %s", code, errOut.String(), wire.EnvSecret)
	}
}
