package modelserver

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func scriptPost(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// scriptSSE returns the JSON payloads of an SSE body, in order.
func scriptSSE(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("bad data line %q: %v", data, err)
			}
			out = append(out, m)
		}
	}
	return out
}

func scriptTypes(events []map[string]any) string {
	var ts []string
	for _, e := range events {
		ts = append(ts, e["type"].(string))
	}
	return strings.Join(ts, " ")
}

func TestResponsesScript(t *testing.T) {
	s := NewResponses(t, Run("echo hi"), Say("bye"), Step{Fail: true, Message: "boom"}, FailWith(401, "bad key"))
	url := s.URL + "/v1/responses"

	_, body := scriptPost(t, url, `{"stream":true,"input":[{"type":"message","role":"user","content":"go"}]}`)
	ev := scriptSSE(t, body)
	if scriptTypes(ev) != "response.created response.output_item.done response.completed" {
		t.Fatalf("events = %s", scriptTypes(ev))
	}
	item := ev[1]["item"].(map[string]any)
	if item["type"] != "function_call" || item["name"] != "exec_command" || item["arguments"] != `{"cmd":"echo hi"}` {
		t.Errorf("function call = %v", item)
	}

	_, body = scriptPost(t, url, `{"input":[{"type":"function_call_output","call_id":"c","output":"Output:\nhi\n"}]}`)
	ev = scriptSSE(t, body)
	msg := ev[1]["item"].(map[string]any)
	if msg["type"] != "message" || !strings.Contains(body, `"text":"bye"`) {
		t.Errorf("message = %v", msg)
	}

	_, body = scriptPost(t, url, `{}`)
	if got := scriptTypes(scriptSSE(t, body)); got != "response.created response.failed" || !strings.Contains(body, "boom") {
		t.Errorf("failure stream = %s: %s", got, body)
	}

	resp, body := scriptPost(t, url, `{}`)
	if resp.StatusCode != 401 || !strings.Contains(body, "bad key") {
		t.Errorf("status = %d %s", resp.StatusCode, body)
	}
	if resp, _ := scriptPost(t, url, `{}`); resp.StatusCode != 500 {
		t.Errorf("an exhausted script answers %d, want 500", resp.StatusCode)
	}

	reqs := s.Requests()
	if len(reqs) != 5 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if out, ok := reqs[1].FunctionOutput(); !ok || out != "Output:\nhi\n" {
		t.Errorf("FunctionOutput = %q, %v", out, ok)
	}
	if _, ok := reqs[0].FunctionOutput(); ok {
		t.Errorf("FunctionOutput found in a request without one")
	}
}

func TestRepeatStepAnswersEveryRequest(t *testing.T) {
	step := FailWith(503, "down")
	step.Repeat = true
	s := NewResponses(t, step)
	for i := 0; i < 3; i++ {
		if resp, _ := scriptPost(t, s.URL+"/v1/responses", `{}`); resp.StatusCode != 503 {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	if s.Remaining() != 1 {
		t.Errorf("Remaining = %d, want the repeating step kept", s.Remaining())
	}
}
