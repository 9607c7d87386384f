package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Core writes two per-run secrets to its state directory for local
// programs of its own user: the Core token (`pedelec mcp`, mcp_http.go)
// and the approver token (`pedelec approve`, approver_token.go). Both are
// written and removed the same way, here.

// writeSecretFile writes secret to <state-dir>/name, mode 0600, through a
// temporary file so a reader never sees half of it.
func (c *Core) writeSecretFile(name, secret, what string) error {
	path := filepath.Join(c.opts.StateDir, name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(secret+"\n"), 0o600); err != nil {
		return fmt.Errorf("write the %s: %w", what, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write the %s: %w", what, err)
	}
	return nil
}

// removeSecretFile removes <state-dir>/name at shutdown, unless another
// Core sharing the state directory has written its own since.
func (c *Core) removeSecretFile(name, secret string) {
	path := filepath.Join(c.opts.StateDir, name)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if strings.TrimSpace(string(data)) == secret {
		os.Remove(path)
	}
}
