package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// MarshalRaw and AgentResultJSON write what json.Marshal writes for every
// shape that carries a call's JSON, byte for byte when the JSON is already
// compact and plain, and the same values with raw copied in unchanged when
// it is not.
func TestRawJSONShapes(t *testing.T) {
	raws := []string{
		`{"delta":2}`,
		`{}`,
		`null`,
		`[1,"x"]`,
		"{ \"html\": \"<b>&amp;</b>\",\n  \"n\": [1.50, -0, 1e3],\t\"u\": \"\u2028é\\u00e9\" }",
	}
	for _, raw := range raws {
		r := json.RawMessage(raw)
		shapes := []struct {
			name       string
			with, less any // v with raw in it; v with the member left nil
		}{
			{"tool_call event",
				Event{Type: FrameEvent, Event: EventToolCall, SessionID: "s_1", Seq: 3, TurnID: "t_1",
					Data: ToolCallData{ToolRequestID: "tr_1", Tool: "update_counter", Args: r, TimeoutMs: 5, Deadline: 6, TurnStartedAt: 7, Redelivered: true}},
				Event{Type: FrameEvent, Event: EventToolCall, SessionID: "s_1", Seq: 3, TurnID: "t_1",
					Data: ToolCallData{ToolRequestID: "tr_1", Tool: "update_counter", TimeoutMs: 5, Deadline: 6, TurnStartedAt: 7, Redelivered: true}}},
			{"tool_call event, no turn",
				Event{Type: FrameEvent, Event: EventToolCall, SessionID: "s_1", Seq: 1, Data: ToolCallData{ToolRequestID: "tr_1", Tool: "t", Args: r}},
				Event{Type: FrameEvent, Event: EventToolCall, SessionID: "s_1", Seq: 1, Data: ToolCallData{ToolRequestID: "tr_1", Tool: "t"}}},
			{"agent tool-call request",
				AgentToolCallRequest{ThreadID: "quote\"<>&\u2028", Tool: "x", Args: r},
				AgentToolCallRequest{ThreadID: "quote\"<>&\u2028", Tool: "x"}},
			{"mcp call request",
				MCPCallRequest{SessionID: "s_1", Tool: "x", Args: r},
				MCPCallRequest{SessionID: "s_1", Tool: "x"}},
		}
		for _, sh := range shapes {
			want, err := json.Marshal(sh.with)
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalRaw(sh.less, "args", r)
			if err != nil {
				t.Fatalf("%s: %v", sh.name, err)
			}
			checkRaw(t, sh.name, raw, got, want)
		}
		want, _ := json.Marshal(AgentResult{OK: true, Result: r})
		got, err := AgentResultJSON(AgentResult{OK: true, Result: r})
		if err != nil {
			t.Fatal(err)
		}
		checkRaw(t, "agent result", raw, got, want)
		content := json.RawMessage(`[{"type":"text","text":"a"}]`)
		want, _ = json.Marshal(AgentResult{OK: true, UntrustedContent: true, MCPContent: content, Result: r})
		got, err = AgentResultJSON(AgentResult{OK: true, UntrustedContent: true, MCPContent: content, Result: r})
		if err != nil {
			t.Fatal(err)
		}
		checkRaw(t, "agent result with MCP content", raw, got, want)
	}

	for _, r := range []AgentResult{{OK: true}, {Error: Errorf(CodeToolTimeout, "late").WithDetails(map[string]any{"timeoutMs": 5})}} {
		want, _ := json.Marshal(r)
		if got, err := AgentResultJSON(r); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AgentResultJSON(%+v) = %s, %v; want %s", r, got, err, want)
		}
	}
	if got, err := MarshalRaw(AgentToolCallRequest{ThreadID: "t", Tool: "x"}, "args", nil); err != nil || string(got) != `{"threadId":"t","tool":"x","args":null}` {
		t.Errorf("nil raw: %s, %v", got, err)
	}
	// The member must be the last one written: anything else is refused,
	// not spliced into the wrong place.
	type notLast struct {
		A json.RawMessage `json:"args"`
		B int             `json:"b"`
	}
	for _, c := range []struct {
		v   any
		key string
	}{
		{Event{Data: ToolCallData{ToolRequestID: "tr_1"}}, "result"}, // no such member
		{AgentResult{OK: true}, "result"},                            // omitted, not null
		{notLast{B: 1}, "args"},
		{[]int{1}, "args"}, // not an object
	} {
		if got, err := MarshalRaw(c.v, c.key, json.RawMessage(`{}`)); err == nil {
			t.Errorf("MarshalRaw(%T, %q) = %s, want an error", c.v, c.key, got)
		}
	}
}

// checkRaw: got holds raw byte for byte, means what want means, and is
// want itself when raw is what encoding/json would write anyway.
func checkRaw(t *testing.T, name, raw string, got, want []byte) {
	t.Helper()
	var compact bytes.Buffer
	json.Compact(&compact, []byte(raw))
	if compact.String() == raw && !bytes.ContainsAny([]byte(raw), "<>&\u2028") && !bytes.Equal(got, want) {
		t.Errorf("%s, %s:\n got %s\nwant %s", name, raw, got, want)
	}
	if !bytes.Contains(got, []byte(raw)) {
		t.Errorf("%s: %s does not hold %s as it is", name, got, raw)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s is not JSON: %v", name, got, err)
	}
	json.Unmarshal(want, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: %s means something else than %s", name, got, want)
	}
}
