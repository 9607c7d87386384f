package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
)

// The same turn run twice, in two sessions, gives the same events: the
// script provider is deterministic, so an app's own tests can pin them.
func TestSameTurnSameEvents(t *testing.T) {
	srv := testenv.Serve(t, nil)
	run := func() string {
		p := wspage.Dial(t, srv.WSURL, "")
		counterPage(p)
		info := scriptSession(t, p, true)
		turn := p.SendText(info.SessionID, "call update_counter {\"delta\": 2}\nspec get_current_page\ncall get_current_page {}\nsay ok\nhello")
		p.AwaitDone(turn, 20*time.Second)
		n := newNormalizer()
		var frames []string
		for _, f := range p.Frames() {
			frames = append(frames, n.normalize(string(f)))
		}
		p.Close()
		return strings.Join(frames, "\n")
	}
	first, second := run(), run()
	if first != second {
		t.Fatalf("two runs differ:\n--- first\n%s\n--- second\n%s", first, second)
	}
	if !strings.Contains(first, `"event":"done"`) {
		t.Fatalf("no done event:\n%s", first)
	}
}
