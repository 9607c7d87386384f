package runtime

import (
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// allowOriginRevokeError explains a revocation the Book could not find
// (APPROVAL_NOT_FOUND, or an origin pattern it cannot parse) when the
// origin is pre-approved by --allow-origin: such a grant is not the
// Book's and is not in the state database; it lasts for this run of
// `pedelec serve` and changes by restarting serve without the flag.
// Other errors are returned as they are.
func (c *Core) allowOriginRevokeError(origin string, err error) error {
	we := wire.AsError(err)
	if we == nil || (we.Code != wire.CodeApprovalNotFound && we.Code != wire.CodeInvalidInput) {
		return err
	}
	origin = strings.TrimRight(strings.TrimSpace(origin), "/")
	for _, pattern := range c.opts.AllowOrigins {
		if matchOrigin(pattern, origin) {
			return wire.Errorf(wire.CodeApprovalNotFound, "%s is approved by `pedelec serve --allow-origin %s`, not by a decision `pedelec revoke` can take back: "+
				"--allow-origin lasts for this run of serve; restart serve without that flag to stop allowing it", origin, pattern).
				WithDetails(map[string]any{"origin": origin, "allowOrigin": pattern})
		}
	}
	return err
}
