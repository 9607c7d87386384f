package modelserver

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMessagesScript(t *testing.T) {
	s := NewMessages(t, Run("pedelec tool-call x '{}'"), Say("done"), Run("echo again"), Step{Fail: true, Message: "boom"}, FailWith(400, "bad"))
	url := s.URL + "/v1/messages?beta=true"

	_, body := scriptPost(t, url, `{"stream":true,"model":"m1","messages":[{"role":"user","content":"go"}]}`)
	ev := scriptSSE(t, body)
	if got := scriptTypes(ev); got != "message_start content_block_start content_block_delta content_block_stop message_delta message_stop" {
		t.Fatalf("events = %s", got)
	}
	if !strings.Contains(body, "event: content_block_start\n") {
		t.Errorf("SSE events must be named")
	}
	block := ev[1]["content_block"].(map[string]any)
	delta := ev[2]["delta"].(map[string]any)
	var input struct{ Command, Description string }
	_ = json.Unmarshal([]byte(delta["partial_json"].(string)), &input)
	if block["type"] != "tool_use" || block["name"] != "Bash" || input.Command != "pedelec tool-call x '{}'" || input.Description == "" {
		t.Errorf("tool use = %v %v", block, delta)
	}
	if ev[4]["delta"].(map[string]any)["stop_reason"] != "tool_use" {
		t.Errorf("stop reason = %v", ev[4])
	}

	_, body = scriptPost(t, url, `{"stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ran"}],"is_error":true}]}]}`)
	ev = scriptSSE(t, body)
	if ev[2]["delta"].(map[string]any)["text"] != "done" || ev[4]["delta"].(map[string]any)["stop_reason"] != "end_turn" {
		t.Errorf("text answer = %s", body)
	}
	if got := strings.Join(splitWords("a bc  d"), "|"); got != "a |bc | |d" {
		t.Errorf("splitWords = %q", got)
	}

	// Claude Code falls back to a non-streaming request: answered as JSON.
	_, body = scriptPost(t, url, `{"stream":false,"messages":[]}`)
	var msg struct {
		Content []struct {
			Type  string
			Input map[string]string
		}
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.StopReason != "tool_use" || msg.Content[0].Input["command"] != "echo again" {
		t.Errorf("non-streaming answer = %s", body)
	}

	_, body = scriptPost(t, url, `{"stream":true}`)
	if !strings.Contains(body, "event: error\n") || !strings.Contains(body, "boom") {
		t.Errorf("stream failure = %s", body)
	}
	resp, body := scriptPost(t, url, `{"stream":true}`)
	if resp.StatusCode != 400 || !strings.Contains(body, `"invalid_request_error"`) || !strings.Contains(body, "bad") {
		t.Errorf("status = %d %s", resp.StatusCode, body)
	}

	reqs := s.Requests()
	if out, isErr, ok := reqs[1].ToolResult(); !ok || !isErr || out != "ran" {
		t.Errorf("ToolResult = %q, %v, %v", out, isErr, ok)
	}
	if _, _, ok := reqs[0].ToolResult(); ok {
		t.Errorf("ToolResult found in a request without one")
	}
}
