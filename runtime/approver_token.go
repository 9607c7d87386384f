package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The approver token (issue 22) is a per-run secret that proves an action
// (approve, deny, revoke) comes from the user: Core embeds it in the
// console and approval pages it serves, which no other origin can read,
// and writes it, mode 0600, to <state-dir>/wire.ApproverTokenFile for the
// CLI. It is not the Core token (mcp_http.go): that one is handed to MCP
// clients, which are agents, and an agent must not approve its own calls.

// newApproverToken makes this run's approver token.
func newApproverToken() string { return newID("pa_") }

// writeApproverToken writes the token file for `pedelec approve` and friends.
func (c *Core) writeApproverToken() error {
	path := filepath.Join(c.opts.StateDir, wire.ApproverTokenFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(c.approver+"\n"), 0o600); err != nil {
		return fmt.Errorf("write the approver token: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write the approver token: %w", err)
	}
	return nil
}

// removeApproverToken removes the file at shutdown, unless another Core
// sharing the state directory has written its own since.
func (c *Core) removeApproverToken() {
	path := filepath.Join(c.opts.StateDir, wire.ApproverTokenFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if strings.TrimSpace(string(data)) == c.approver {
		os.Remove(path)
	}
}
