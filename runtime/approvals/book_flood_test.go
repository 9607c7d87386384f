package approvals

import (
	"fmt"
	"testing"
)

// Every distinct origin that asks adds a pending request, with no bound: a
// hostile site with wildcard DNS (a1.evil.test, a2.evil.test, ... in
// iframes) or a local agent forging Origin headers floods the console and
// Core's memory with prompts (the attack session held 2999 pending at once,
// Core's RSS 20 MB -> 240 MB). Found by w-attack; the Book now refuses an
// origin past DefaultMaxPendingOrigins with CREATE_SESSION_NOT_APPROVED.
func TestBookBoundsPendingOriginRequests(t *testing.T) {
	b := newBook(t, Options{})
	refused := false
	for i := 0; i < 5000 && !refused; i++ {
		if _, err := b.RequestOrigin(fmt.Sprintf("https://a%d.evil.test", i)); err != nil {
			refused = true
		}
	}
	if n := len(b.State().Pending); !refused || n > 1000 {
		t.Fatalf("the Book holds %d pending origin requests and refused none", n)
	}
}
