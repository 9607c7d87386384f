package provider

import (
	"encoding/json"
	"errors"
	"strings"
)

// decodeLenient decodes a JSON line, keeping every field that fits: a field
// whose type changed in another CLI version is skipped, not the whole line.
// It reports false only for a line that is not JSON. Every stream parser
// (cliStream) decodes its lines with it.
func decodeLenient(line []byte, v any) bool {
	err := json.Unmarshal(line, v)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}

// errorWords is an error event's message for a warning: a CLI may send an
// error without one, and "codex: " alone would say nothing.
func errorWords(msg string) string {
	if msg = strings.TrimSpace(msg); msg == "" {
		return "an error without a message"
	}
	return msg
}
