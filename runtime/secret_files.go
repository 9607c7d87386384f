package runtime

import (
	"fmt"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/secretfile"
)

// Core writes two per-run secrets to its state directory for local
// programs of its own user: the Core token (`pedelec mcp`, mcp_http.go)
// and the approver token (`pedelec approve`, approver_token.go). Both are
// written and removed the same way, through runtime/secretfile, which
// never follows a link planted in the state directory.

// writeSecretFile writes secret to <state-dir>/name, mode 0600, through a
// temporary file so a reader never sees half of it.
func (c *Core) writeSecretFile(name, secret, what string) error {
	if err := secretfile.Write(c.opts.StateDir, name, []byte(secret+"\n")); err != nil {
		return fmt.Errorf("write the %s: %w", what, err)
	}
	return nil
}

// removeSecretFile removes <state-dir>/name at shutdown, unless another
// Core sharing the state directory has written its own since.
func (c *Core) removeSecretFile(name, secret string) {
	secretfile.Remove(c.opts.StateDir, name, func(data []byte) bool { return strings.TrimSpace(string(data)) == secret })
}
