package approvals

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestSite(t *testing.T) {
	for origin, want := range map[string]string{
		"https://a.b.example.co.uk":  "example.co.uk",
		"https://evil.github.io":     "evil.github.io", // a public suffix: each user's its own site
		"http://s3.evil.localhost:8": "evil.localhost",
		"http://127.0.0.1:5173":      "127.0.0.1",
		"http://[::1]:80":            "::1",
		"http://localhost:3000":      "localhost",
	} {
		if got := Site(origin); got != want {
			t.Errorf("Site(%s) = %s, want %s", origin, got, want)
		}
	}
}

// One site's subdomains (in iframes, each its own origin) filled every
// pending place, and a new site then heard "32 other sites are already
// waiting": one site now gets a few places, and no page hears a count.
func TestBookBoundsPendingPerSite(t *testing.T) {
	b := newBook(t, Options{})
	var refusal error
	for i := 0; i < 40 && refusal == nil; i++ {
		_, refusal = b.RequestOrigin(fmt.Sprintf("https://s%d.evil.test", i))
	}
	if n := len(b.State().Pending); refusal == nil || n != DefaultMaxPendingPerSite {
		t.Fatalf("one site holds %d pending requests (refused: %v)", n, refusal)
	}
	we := wire.AsError(refusal)
	if we.Code != wire.CodeCreateSessionNotApproved || tellsCount(we) || len(we.Details.(map[string]any)) != 1 {
		t.Errorf("the refusal tells the page too much: %+v", we)
	}
	if _, err := b.RequestOrigin("https://good.example"); err != nil {
		t.Fatalf("another site may not ask while one site is at its bound: %v", err)
	}
	// The total still holds, without a count either.
	for i := 0; i < 40; i++ {
		_, refusal = b.RequestOrigin(fmt.Sprintf("https://site%d.test", i))
	}
	if we := wire.AsError(refusal); we == nil || tellsCount(we) || len(b.State().Pending) != DefaultMaxPendingOrigins {
		t.Errorf("total bound: %d pending, last refusal %+v", len(b.State().Pending), we)
	}
}

// A rejected site asked again at once, without limit, and so could reopen
// its approval window on every click: it now waits RejectCooldown.
func TestBookRejectCooldown(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	b := newBook(t, Options{RejectCooldown: time.Minute, Now: func() time.Time { return now }})
	tk, err := b.RequestOrigin("https://nag.example")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Decide(tk.ID(), wire.DecisionDeny, "no", ByConsole); err != nil {
		t.Fatal(err)
	}
	_, err = b.RequestOrigin("https://nag.example")
	if we := wire.AsError(err); we == nil || we.Code != wire.CodeApprovalRejected || we.Details.(map[string]any)["retryAfterMs"] != int64(60000) {
		t.Fatalf("asking again at once: %v", err)
	}
	if len(b.State().Pending) != 0 {
		t.Fatal("the refused ask is pending")
	}
	now = now.Add(time.Minute)
	if _, err := b.RequestOrigin("https://nag.example"); err != nil {
		t.Fatalf("after the cooldown: %v", err)
	}
	// The user can still approve it any time.
	b2 := newBook(t, Options{Now: func() time.Time { return now }})
	tk, _ = b2.RequestOrigin("https://x.example")
	b2.Decide(tk.ID(), wire.DecisionDeny, "", ByCLI)
	if _, err := b2.Decide("https://x.example", wire.DecisionApprove, "", ByCLI); err != nil || !b2.Approved("https://x.example") {
		t.Fatalf("approve after a rejection: %v", err)
	}
}

// tellsCount: the message holds a number besides those of the origin it names.
func tellsCount(we *wire.Error) bool {
	origin, _ := we.Details.(map[string]any)["origin"].(string)
	return strings.ContainsAny(strings.ReplaceAll(we.Message, origin, ""), "0123456789")
}
