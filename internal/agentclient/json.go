package agentclient

import (
	"bytes"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The few JSON shapes of a tool-call process are written and read here
// without encoding/json's struct reflection: building a struct's field
// table costs a fresh process more than the call (it grew the stack and
// touched code and heap pages that nothing else needed; issue 15). The
// bytes are those json.Marshal would write, and the error path still
// decodes wire.Error with encoding/json.

// requestJSON is wire.AgentToolCallRequest ({"threadId","tool","args"}),
// or wire.AgentToolSpecRequest when args is nil.
func requestJSON(threadID, tool string, args json.RawMessage) ([]byte, error) {
	b := append(make([]byte, 0, 64+len(args)), `{"threadId":`...)
	b = appendString(b, threadID)
	b = append(b, `,"tool":`...)
	b = appendString(b, tool)
	if args != nil {
		b = append(b, `,"args":`...)
		var err error
		if b, err = appendRaw(b, args); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string's encoder: no reflection over fields
	return append(b, q...)
}

// appendRaw appends raw compacted and HTML-escaped, as json.Marshal writes
// a json.RawMessage; invalid JSON is an error.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(b) // appends to b, as the name says
	json.HTMLEscape(out, compact.Bytes())
	return out.Bytes(), nil
}

// parseResult reads Core's answer, {"ok":true,"result":...} or
// {"ok":false,"error":{...}}; ok is false for anything else.
func parseResult(raw []byte) (r wire.AgentResult, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return r, false
	}
	if v, has := fields["ok"]; has && json.Unmarshal(v, &r.OK) != nil {
		return r, false
	}
	if v, has := fields["result"]; has {
		r.Result = v // a handler's null stays null, as json.Unmarshal keeps it
	}
	if v, has := fields["error"]; has && string(v) != "null" {
		if json.Unmarshal(v, &r.Error) != nil {
			return r, false
		}
	}
	return r, r.OK || r.Error != nil
}

// appendOK writes a successful result as json.Marshal(r) would; ok is
// false when r is not one (errors go through encoding/json).
func appendOK(b []byte, r wire.AgentResult) ([]byte, bool) {
	if !r.OK || r.Error != nil {
		return nil, false
	}
	if len(r.Result) == 0 {
		return append(b, `{"ok":true}`...), true
	}
	b, err := appendRaw(append(b, `{"ok":true,"result":`...), r.Result)
	if err != nil {
		return nil, false
	}
	return append(b, '}'), true
}
