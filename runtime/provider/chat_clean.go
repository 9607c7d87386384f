package provider

import (
	"strings"
	"unicode"
)

// CleanChat is agent chat as a page may show it: without the control
// characters (ESC starts terminal sequences; a page that renders the text
// in a terminal view would act on them) and bidirectional formatting
// characters (U+202E shows "evil\u202etxt.exe" as "evilexe.txt") an agent
// may write, the same rule as progress lines. Newlines and tabs stay: chat
// is text, not a line.
func CleanChat(s string) string {
	unsafe := func(r rune) bool {
		return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))
	}
	if strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafe(r) {
			return -1
		}
		return r
	}, s)
}
