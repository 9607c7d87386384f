package e2e

// The approval window follows the decision wherever it is made: approved
// from a terminal while the window is open, the window says so at once
// (who and when, in the same 24-hour time as everywhere) and its buttons
// are gone, instead of offering a Deny that could only answer
// APPROVAL_NOT_FOUND. Approved in the window itself, "Approved." is in
// view without scrolling. One word for the negative decision: Deny.

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestBrowserApprovalWindowFollowsDecisionsElsewhere(t *testing.T) {
	core, app, b, p := pageAwaitingApproval(t)

	user := newBrowser(t)
	if err := user.do(10*time.Second, chromedp.EmulateViewport(520, 640)); err != nil {
		t.Fatal(err)
	}
	if err := user.do(30*time.Second, chromedp.Navigate(p.URL)); err != nil {
		t.Fatal(err)
	}
	var labels string
	user.js(t, &labels, `return [...document.querySelectorAll("[data-decision]")].map((b) => b.textContent).join("|")`)
	if strings.Contains(labels, "Reject") || !strings.Contains(labels, "Deny") {
		t.Errorf("the window's buttons say %q: the console and the CLI say Deny", labels)
	}
	// Decided in a terminal while the window is open.
	if out, err := pedelecCLI(t, core, nil, "approve", app.URL); err != nil {
		t.Fatalf("approve: %v %s", err, out)
	}
	user.waitJS(t, 10*time.Second, `!!document.body.dataset.decided`, "the window to learn of the decision")
	var got struct {
		Result  string
		Visible int
		InView  bool
		Decided string
	}
	user.js(t, &got, `const r = document.getElementById("result").getBoundingClientRect();
return { Result: document.getElementById("result").textContent, Decided: document.body.dataset.decided,
  Visible: [...document.querySelectorAll("[data-decision]")].filter((b) => b.offsetParent !== null).length,
  InView: r.top >= 0 && r.bottom <= innerHeight };`)
	user.screenshot(t, "approval-window-decided-elsewhere")
	if !regexp.MustCompile(`^Approved from a terminal \(pedelec\) at \d\d:\d\d:\d\d\.$`).MatchString(got.Result) || got.Decided != "approve" || got.Visible != 0 || !got.InView {
		t.Fatalf("after pedelec approve the window shows %+v", got)
	}
	if r := pageResult(t, b); r["ok"] == "" {
		t.Fatalf("createSession after approval: %v", r)
	}

	// Approved in the window itself: "Approved." in view, no scrolling.
	if out, err := pedelecCLI(t, core, nil, "revoke", app.URL); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	b.js(t, nil, startWaitingCreate)
	p2 := waitPending(t, b)
	if err := user.do(30*time.Second, chromedp.Navigate(p2.URL)); err != nil {
		t.Fatal(err)
	}
	decideIn(t, user.ctx, "", "approve")
	user.waitJS(t, 10*time.Second, `document.body.dataset.decided === "approve"`, "the window's own decision")
	var own struct {
		Result string
		InView bool
	}
	user.js(t, &own, `const r = document.getElementById("result").getBoundingClientRect();
return { Result: document.getElementById("result").textContent, InView: r.top >= 0 && r.bottom <= innerHeight };`)
	if own.Result != "Approved." || !own.InView {
		t.Fatalf("after Approve in the window: %+v", own)
	}
}
