package wire

// UnescapeHTML undoes the one thing encoding/json adds that a person or an
// agent reading JSON trips over: `<`, `>` and `&` written as \u003c, \u003e
// and \u0026 (json.Marshal does it for HTML pages; Pedelec's JSON is never
// put in one). The value is unchanged: only those three escapes are
// rewritten, and an escaped backslash before a "u003c" keeps it text.
// Everything that prints JSON for the CLI's or an MCP client's reader goes
// through here or an Encoder with SetEscapeHTML(false).
func UnescapeHTML(data []byte) []byte {
	i := indexEscape(data, 0)
	if i < 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	last := 0
	for i >= 0 {
		if c, ok := htmlEscape(data[i:]); ok {
			out = append(append(out, data[last:i]...), c)
			last = i + 6
			i = indexEscape(data, last)
			continue
		}
		i = indexEscape(data, i+2) // another escape: \\, \n, \u00e9 ...
	}
	return append(out, data[last:]...)
}

// indexEscape is where the next backslash escape starts at or after from.
func indexEscape(data []byte, from int) int {
	for i := from; i < len(data); i++ {
		if data[i] == '\\' {
			return i
		}
	}
	return -1
}

// htmlEscape reads one of the three escapes at the start of b.
func htmlEscape(b []byte) (byte, bool) {
	if len(b) < 6 || b[1] != 'u' || b[2] != '0' || b[3] != '0' {
		return 0, false
	}
	switch string(b[4:6]) {
	case "3c", "3C":
		return '<', true
	case "3e", "3E":
		return '>', true
	case "26":
		return '&', true
	}
	return 0, false
}
