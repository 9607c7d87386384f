package e2e

// A page whose Core runs elsewhere could only learn "could not connect".
// In real Chromium, checkAvailability() and getApprovalStatus() now tell
// apart nothing answering at the URL and something answering that is not
// Core, each with its next step (Core refusing the name the page reached
// it by is in remote_forward_test.go, through the proxy).

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestRemotePageSaysWhatIsWrong(t *testing.T) {
	testenv.SkipShort(t, "chromium and the real binary")
	core := testenv.Serve(t, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("a dev server that is not Pedelec"))
	}))
	t.Cleanup(other.Close)
	b := newBrowser(t)
	app := appServer(t)
	b.open(t, app.URL+"/harness.html?core="+core.URL, "ready")

	type seen struct {
		Code, Found, Message string
		Installed, Approved  bool
	}
	look := func(ws string) seen {
		t.Helper()
		var got seen
		b.js(t, &got, fmt.Sprintf(`
const p = new window.sdk.Pedelec({ url: %q });
const a = await p.checkAvailability();
const s = await p.getApprovalStatus();
return { code: a.error?.code ?? "", found: a.error?.details?.found ?? "", message: a.error?.message ?? "", installed: s.installed, approved: s.approved };`, ws))
		return got
	}

	nothing := look("ws://" + testenv.FreeAddr(t) + "/ws")
	if nothing.Code != "CORE_UNREACHABLE" || nothing.Found != "nothing" || !strings.Contains(nothing.Message, "pedelec serve") || !strings.Contains(nothing.Message, "remote.md") || nothing.Installed {
		t.Errorf("nothing at the URL: %+v", nothing)
	}
	notCore := look("ws://" + strings.TrimPrefix(other.URL, "http://") + "/ws")
	if notCore.Code != "CORE_UNREACHABLE" || notCore.Found != "not_pedelec" || !strings.Contains(notCore.Message, "not Pedelec Core") || notCore.Installed {
		t.Errorf("another server at the URL: %+v", notCore)
	}
	// Core reached by a name it was not told of (HOST_NOT_ALLOWED) is
	// TestRemoteHTTPSForwardWithPublicURL's: it needs the proxy's names.
	// Core itself, for contrast: found, and this origin not approved yet.
	ok := look(strings.Replace(core.WSURL, "http", "ws", 1))
	if ok.Code != "CREATE_SESSION_NOT_APPROVED" || !ok.Installed {
		t.Errorf("Core at the URL: %+v", ok)
	}
}
