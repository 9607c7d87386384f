package wire

import (
	"encoding/json"
	"testing"
)

// What json.Marshal escapes for HTML reads back as the characters
// themselves, and the value is the same; other escapes stay as they are.
func TestUnescapeHTML(t *testing.T) {
	for _, s := range []string{"<b>&</b>", `a\u003cb`, `\`, "line\nnext", "é \u2028", `\\u003c`, "ends with \\"} {
		marshaled, _ := json.Marshal(map[string]string{"text": s})
		got := UnescapeHTML(marshaled)
		var back map[string]string
		if err := json.Unmarshal(got, &back); err != nil || back["text"] != s {
			t.Errorf("%q: %s → %s reads back as %q (%v)", s, marshaled, got, back["text"], err)
		}
	}
	if got := string(UnescapeHTML([]byte(`{"m":"<tool> \u0026 \u003e"}`))); got != `{"m":"<tool> & >"}` {
		t.Errorf("got %s", got)
	}
	if got := string(UnescapeHTML([]byte(`"\\u003c"`))); got != `"\\u003c"` {
		t.Errorf("an escaped backslash changed: %s", got)
	}
}
