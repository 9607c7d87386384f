package agentclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What a tool-call process sends is what encoding/json writes for the wire
// types, but for the arguments, which go as the agent wrote them; it reads
// Core's answers as encoding/json does and prints the result as Core
// answered it (on one line); anything else is not taken for an answer.
func TestWireShapes(t *testing.T) {
	var body []byte
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Write([]byte(answer))
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Secret: "s", HTTP: srv.Client()}
	ctx := context.Background()

	args := []string{`{}`, `{"n":1}`, "{ \"a\" : [1, 2,\n 3], \"html\":\"<b>&</b>\", \"u\":\"\u2028é\" }", `{"deep":{"x":null}}`}
	answer = `{"ok":true}`
	for _, a := range args {
		for _, id := range []string{"t1", "quote\"back\\slash<>&\u2028", "é"} {
			head, _ := json.Marshal(wire.AgentToolSpecRequest{ThreadID: id, Tool: id + "_tool"})
			want := append(append(head[:len(head)-1:len(head)-1], `,"args":`+a...), '}')
			if c.ToolCall(ctx, id, id+"_tool", json.RawMessage(a)); !bytes.Equal(body, want) {
				t.Errorf("tool-call request for %q, %q:\n got %s\nwant %s", id, a, body, want)
			}
			if plain, _ := json.Marshal(wire.AgentToolCallRequest{ThreadID: id, Tool: id + "_tool", Args: json.RawMessage(a)}); bytes.HasSuffix(plain, []byte(`"args":`+a+`}`)) && !bytes.Equal(body, plain) {
				t.Errorf("tool-call request for %q, %q is not what encoding/json writes: %s", id, a, body)
			}
			want, _ = json.Marshal(wire.AgentToolSpecRequest{ThreadID: id, Tool: id})
			if c.ToolSpec(ctx, id, id); !bytes.Equal(body, want) {
				t.Errorf("tool-spec request for %q:\n got %s\nwant %s", id, body, want)
			}
		}
	}
	if res := c.ToolCall(ctx, "t", "x", json.RawMessage(`{"a":`)); res.OK || res.Error.Code != wire.CodeInvalidInput {
		t.Errorf("invalid arguments sent: %+v", res)
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
	for _, answer = range answers {
		var want wire.AgentResult
		if err := json.Unmarshal([]byte(answer), &want); err != nil {
			t.Fatal(err)
		}
		got := c.ToolCall(ctx, "t", "x", json.RawMessage(`{}`))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parse %s:\n got %+v\nwant %+v", answer, got, want)
		}
		wantOut, _ := json.Marshal(want)
		if want.OK && want.Result != nil {
			// The result as Core answered it, on one line.
			result := want.Result
			if bytes.ContainsAny(result, "\r\n") {
				var one bytes.Buffer
				json.Compact(&one, result)
				result = one.Bytes()
			}
			wantOut = []byte(`{"ok":true,"result":` + string(result) + `}`)
		}
		var buf bytes.Buffer
		Print(&buf, got)
		if buf.String() != string(wantOut)+"\n" {
			t.Errorf("print %s:\n got %s\nwant %s", answer, buf.String(), wantOut)
		}
	}
	for _, answer = range []string{`[]`, `null`, `{}`, `{"ok":false}`, `{"ok":"yes"}`, `{"ok":false,"error":"x"}`, `<html>`} {
		if res := c.ToolCall(ctx, "t", "x", json.RawMessage(`{}`)); res.OK || res.Error.Code != wire.CodeCoreUnreachable {
			t.Errorf("%s taken for a Pedelec answer: %+v", answer, res)
		}
	}
}
