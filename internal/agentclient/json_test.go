package agentclient

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What a tool-call process sends and prints is byte for byte what
// encoding/json writes for the wire types, and it reads Core's answers as
// encoding/json does.
func TestJSONShapesMatchEncodingJSON(t *testing.T) {
	args := []string{`{}`, `{"n":1}`, "{ \"a\" : [1, 2,\n 3], \"html\":\"<b>&</b>\", \"u\":\"\u2028é\" }", `{"deep":{"x":null}}`}
	for _, a := range args {
		for _, id := range []string{"t1", "quote\"back\\slash<>&\u2028", "é"} {
			want, _ := json.Marshal(wire.AgentToolCallRequest{ThreadID: id, Tool: id + "_tool", Args: json.RawMessage(a)})
			got, err := requestJSON(id, id+"_tool", json.RawMessage(a))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("tool-call request for %q, %q:\n got %s (%v)\nwant %s", id, a, got, err, want)
			}
			want, _ = json.Marshal(wire.AgentToolSpecRequest{ThreadID: id, Tool: id})
			if got, _ := requestJSON(id, id, nil); !bytes.Equal(got, want) {
				t.Errorf("tool-spec request for %q:\n got %s\nwant %s", id, got, want)
			}
		}
	}
	if _, err := requestJSON("t", "x", json.RawMessage(`{"a":`)); err == nil {
		t.Error("invalid arguments encoded without an error")
	}

	answers := []string{
		`{"ok":true,"result":{"n":1}}`,
		`{"ok":true,"result":null}`,
		`{"ok":true}`,
		"{\"ok\":true,\"result\":{ \"html\": \"<a href='x'>&amp;</a>\", \"list\": [1, 2.50, -0],\n \"s\":\"\u2028\"}}",
		`{"ok":true,"result":"just a string"}`,
		`{"ok":false,"error":{"code":"TOOL_TIMEOUT","message":"no answer","details":{"timeoutMs":5}}}`,
		`{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"bad"},"extra":1}`,
	}
	for _, a := range answers {
		var want wire.AgentResult
		if err := json.Unmarshal([]byte(a), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := parseResult([]byte(a))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("parse %s:\n got %+v (%v)\nwant %+v", a, got, ok, want)
		}
		wantOut, _ := json.Marshal(want)
		var buf bytes.Buffer
		Print(&buf, got)
		if buf.String() != string(wantOut)+"\n" {
			t.Errorf("print %s:\n got %s\nwant %s", a, buf.String(), wantOut)
		}
	}
	for _, bad := range []string{`[]`, `null`, `{}`, `{"ok":false}`, `{"ok":"yes"}`, `{"ok":false,"error":"x"}`, `<html>`} {
		if r, ok := parseResult([]byte(bad)); ok {
			t.Errorf("%s taken for a Pedelec answer: %+v", bad, r)
		}
	}
}
