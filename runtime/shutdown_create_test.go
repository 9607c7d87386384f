package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A session asked for while Core stops is refused as Core shutting down,
// not as SESSION_ENDED: no session existed to end, and the page is to
// create it again once Core is back.
func TestCreateSessionWhileCoreStopsIsCoreShuttingDown(t *testing.T) {
	c, srv, _ := runCore(t, t.TempDir(), "", nil)
	p := wspage.Dial(t, wsURL(srv), srv.URL)
	c.Shutdown(context.Background())
	_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, err, wire.CodeCoreShuttingDown)
}
