package runtime

import (
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The approver token (issue 22) is a per-run secret that proves an action
// (approve, deny, revoke) comes from the user: Core embeds it in the
// console and approval pages it serves, which no other origin can read,
// and writes it, mode 0600, to <state-dir>/wire.ApproverTokenFile for the
// CLI. It is not the Core token (core_token.go): that one is handed to MCP
// clients, which are agents, and an agent must not approve its own calls.

// newApproverToken makes this run's approver token.
func newApproverToken() string { return ids.New("pa_") }

// writeApproverToken writes the token file for `pedelec approve` and friends.
func (c *Core) writeApproverToken() error {
	return c.writeSecretFile(wire.ApproverTokenFile, c.approver, "approver token")
}

// removeApproverToken removes the file at shutdown (removeSecretFile).
func (c *Core) removeApproverToken() { c.removeSecretFile(wire.ApproverTokenFile, c.approver) }
