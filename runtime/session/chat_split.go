package session

import "unicode/utf8"

// maxChatChunk bounds one chat_delta event's text: an agent's chunk
// larger than this (one of 9 MiB was sent) is split into several events,
// so no single event, frame or database value is larger than the page
// needs to show it, and the event log's byte bound drops old chat piece
// by piece rather than all of a turn at once.
const maxChatChunk = 64 << 10

// splitChat cuts s into pieces of at most max bytes, at character
// boundaries.
func splitChat(s string, max int) []string {
	if len(s) <= max {
		return []string{s}
	}
	var out []string
	for len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = max // not UTF-8 at all: cut where the bound is
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
