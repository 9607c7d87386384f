package provider

import (
	"encoding/json"
	"errors"
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
