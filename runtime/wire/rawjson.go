package wire

import (
	"encoding/json"
	"fmt"
)

// A tool call's arguments and result cross Pedelec as the bytes they came
// in as (docs/protocol.md, "A call's JSON"): Core decodes the arguments
// once, to check them against the tool's schema, and looks inside neither
// anywhere else. encoding/json, though, re-encodes every json.RawMessage it
// marshals: it scans it again, drops its whitespace and escapes <, > and &.
// These two let encoding/json write everything around the call's JSON and
// copy that in as it is. The caller vouches for raw: one JSON value, UTF-8,
// no space around it (the validator, the page's decoded frame or Core's
// decoded answer checked it).

// MarshalRaw is json.Marshal(v) with raw in place of the null that v's
// member key holds. That member must come last, in v or in the object v
// ends with (an event's data): v is written with key left nil, so it ends
// in `"key":null` and closing braces, and raw goes where the null was.
// A nil raw stays null, as encoding/json writes it.
func MarshalRaw(v any, key string, raw json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || raw == nil {
		return b, err
	}
	end := len(b)
	for end > 0 && b[end-1] == '}' {
		end--
	}
	at := end - len("null")
	member := at - len(key) - 3 // "key":
	if end == len(b) || member < 0 || string(b[member:at]) != `"`+key+`":` || string(b[at:end]) != "null" {
		return nil, fmt.Errorf(`wire.MarshalRaw: %T does not end with "%s":null`, v, key)
	}
	out := make([]byte, 0, at+len(raw)+len(b)-end)
	out = append(append(append(out, b[:at]...), raw...), b[end:]...)
	return out, nil
}

// AgentResultJSON is json.Marshal(r), but an OK result is written as it
// is: what Core answers the agent endpoint with, what `pedelec tool-call`
// prints and what an in-process provider gives the model.
func AgentResultJSON(r AgentResult) ([]byte, error) {
	if !r.OK || r.Error != nil || len(r.Result) == 0 {
		return json.Marshal(r)
	}
	head := `{"ok":true,`
	if r.UntrustedContent {
		head += `"untrustedContent":true,`
	}
	// Room for the newline each writer of an answer ends it with.
	out := make([]byte, 0, len(head)+len(r.MCPContent)+len(r.Result)+32)
	out = append(out, head...)
	if len(r.MCPContent) > 0 {
		out = append(append(append(out, `"mcpContent":`...), r.MCPContent...), ',')
	}
	return append(append(append(out, `"result":`...), r.Result...), '}'), nil
}
