package runtime

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// revokeVia posts a revocation to the approvals API as the CLI does.
func revokeVia(t *testing.T, h *harness, origin string) (int, wire.AgentResult) {
	t.Helper()
	body, _ := json.Marshal(wire.OriginRevocation{Origin: origin})
	req, _ := http.NewRequest("POST", h.srv.URL+wire.ApprovalsPath+"revoke", strings.NewReader(string(body)))
	req.Header.Set(approvals.HeaderApprover, h.core.approver)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res wire.AgentResult
	_ = json.NewDecoder(resp.Body).Decode(&res)
	return resp.StatusCode, res
}

// Revoking an origin that only --allow-origin approves cannot work (the
// flag is not a grant in the state database): the answer says so and
// says how to change it, for the exact origin, one a wildcard matches,
// and the pattern itself. An origin nobody approved keeps the plain answer.
func TestRevokeAllowOriginExplains(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.AllowOrigins = []string{"http://app.example:8080", "http://localhost:*"}
	})
	for _, origin := range []string{"http://app.example:8080", "http://localhost:5173", "http://localhost:*"} {
		status, res := revokeVia(t, h, origin)
		we := res.Error
		if status != http.StatusNotFound || we == nil || we.Code != wire.CodeApprovalNotFound ||
			!strings.Contains(we.Message, "--allow-origin") || !strings.Contains(we.Message, "restart serve without that flag") {
			t.Fatalf("revoke %s: %d %+v", origin, status, we)
		}
	}
	status, res := revokeVia(t, h, "http://other.example")
	if status != http.StatusNotFound || res.Error == nil || res.Error.Code != wire.CodeApprovalNotFound || strings.Contains(res.Error.Message, "--allow-origin") {
		t.Fatalf("revoke an unknown origin: %d %+v", status, res.Error)
	}
	// A grant of the Book is still revoked as before.
	if err := h.core.book.Grant("http://granted.example", approvals.ByCLI); err != nil {
		t.Fatal(err)
	}
	if status, res := revokeVia(t, h, "http://granted.example"); status != http.StatusOK || res.Error != nil {
		t.Fatalf("revoke a grant: %d %+v", status, res.Error)
	}
}
