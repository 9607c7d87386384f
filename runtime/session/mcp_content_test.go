package session

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const redPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// A page's MCP content blocks reach an MCP client's answer unchanged and
// inline; `tool-call` (ForAgent) and an in-process model (ForModel) get
// the result alone, as before.
func TestMCPContentGoesToMCPClientsOnly(t *testing.T) {
	content := json.RawMessage(`[{"type":"text","text":"a <b> & c"},{"type":"image","data":"` + redPixel + `","mimeType":"image/png"}]`)
	result := json.RawMessage(`{"rows":3}`)
	for _, to := range []Audience{ForMCP, ForAgent, ForModel} {
		s, page := newCallingSession(t)
		out := callAndAnswer(t, s, page, to, func(id string) error {
			return s.SubmitResult(wire.SubmitToolResultParams{ToolRequestID: id, MCPContent: content, Result: result})
		})
		if !out.OK || !bytes.Equal(out.Result, result) {
			t.Fatalf("audience %d: %+v", to, out)
		}
		if want := content; to != ForMCP {
			if out.MCPContent != nil {
				t.Errorf("audience %d got the MCP content: %s", to, out.MCPContent)
			}
		} else if !bytes.Equal(out.MCPContent, want) {
			t.Errorf("MCP content = %s, want it unchanged: %s", out.MCPContent, want)
		}
	}
}

// A result with blocks stays inline for an MCP client, however large:
// the blocks are the page's answer to that client.
func TestMCPContentIsNeverAResultFile(t *testing.T) {
	s, page := newCallingSession(t)
	big := strings.Repeat("x", 1<<15) // over the table's 16 KiB inline limit
	content := json.RawMessage(`[{"type":"text","text":"` + big + `"}]`)
	out := callAndAnswer(t, s, page, ForMCP, func(id string) error {
		return s.SubmitResult(wire.SubmitToolResultParams{ToolRequestID: id, MCPContent: content, Result: json.RawMessage(`"` + big + `"`)})
	})
	if !out.OK || out.ResultFile != nil || !bytes.Equal(out.MCPContent, content) {
		t.Fatalf("a large result with content: file=%v ok=%v", out.ResultFile, out.OK)
	}
}

// Blocks an MCP client could not be given settle the call with
// TOOL_RESULT_INVALID naming the block and its field, for the agent and
// for the page alike: the call is answered, never left to its timeout.
func TestBadMCPContentSettlesTheCallWithItsPath(t *testing.T) {
	cases := []struct {
		content   string
		path      string
		index     int // -1: none
		field     string
		inMessage string
	}{
		{`{"type":"text","text":"x"}`, "mcpContent", -1, "", "must be an array"},
		{`"text"`, "mcpContent", -1, "", "got a string"},
		{`[{"type":"text","text":"ok"},{"type":"video","data":"AA=="}]`, "mcpContent[1].type", 1, "type", `"video" is not a content type`},
		{`[{"type":"tool_use","id":"x","name":"y","input":{}}]`, "mcpContent[0].type", 0, "type", `"tool_use" is not`},
		{`[{"text":"no type"}]`, "mcpContent[0].type", 0, "type", "got nothing"},
		{`[{"type":7}]`, "mcpContent[0].type", 0, "type", "got a number 7"},
		{`[42]`, "mcpContent[0]", 0, "", "must be an object"},
		{`[{"type":"text"}]`, "mcpContent[0].text", 0, "text", "is missing; a text block needs text"},
		{`[{"type":"text","text":5}]`, "mcpContent[0].text", 0, "text", "must be a string"},
		{`[{"type":"image","data":"` + redPixel + `"}]`, "mcpContent[0].mimeType", 0, "mimeType", "is missing"},
		{`[{"type":"image","data":"not base64!","mimeType":"image/png"}]`, "mcpContent[0].data", 0, "data", "base64"},
		{`[{"type":"audio","data":"AA==","mimeType":""}]`, "mcpContent[0].mimeType", 0, "mimeType", "an empty string"},
		{`[{"type":"resource_link","name":"n"}]`, "mcpContent[0].uri", 0, "uri", "is missing"},
		{`[{"type":"resource_link","uri":"file:///x","name":"n","size":-1}]`, "mcpContent[0].size", 0, "size", "whole number"},
		{`[{"type":"resource","resource":"x"}]`, "mcpContent[0].resource", 0, "resource", "must be an object"},
		{`[{"type":"resource","resource":{"text":"t"}}]`, "mcpContent[0].resource.uri", 0, "resource.uri", "needs a uri"},
		{`[{"type":"resource","resource":{"uri":"test://x"}}]`, "mcpContent[0].resource", 0, "resource", "either text"},
		{`[{"type":"resource","resource":{"uri":"test://x","blob":"%%"}}]`, "mcpContent[0].resource.blob", 0, "resource.blob", "base64"},
		{`[{"type":"text","text":"x","annotations":[]}]`, "mcpContent[0].annotations", 0, "annotations", "must be an object"},
		{`[{"type":"text","text":"x","annotations":{"audience":["model"]}}]`, "mcpContent[0].annotations.audience", 0, "annotations.audience", `got "model"`},
		{`[{"type":"text","text":"x","annotations":{"priority":"high"}}]`, "mcpContent[0].annotations.priority", 0, "annotations.priority", "from 0 to 1"},
		{`[{"type":"text","text":"x","annotations":{"priority":2}}]`, "mcpContent[0].annotations.priority", 0, "annotations.priority", "from 0 to 1"},
		{`[{"type":"resource_link","uri":"u","name":"n","icons":[{"mimeType":"image/png"}]}]`, "mcpContent[0].icons", 0, "icons", "icon 0 has no src"},
		{`[{"type":"resource_link","uri":"u","name":"n","icons":{"src":"x"}}]`, "mcpContent[0].icons", 0, "icons", "an array of icons"},
		{`[{"type":"image","data":"` + redPixel + `","mimeType":"image/png","_meta":"m"}]`, "mcpContent[0]._meta", 0, "_meta", "must be an object"},
		{`[` + strings.Repeat(`{"type":"text","text":""},`, maxContentBlocks) + `{"type":"text","text":""}]`, "mcpContent", -1, "", "at most 256"},
	}
	for _, c := range cases {
		s, page := newCallingSession(t)
		var pageErr error
		out := callAndAnswer(t, s, page, ForMCP, func(id string) error {
			pageErr = s.SubmitResult(wire.SubmitToolResultParams{ToolRequestID: id, MCPContent: json.RawMessage(c.content), Result: json.RawMessage(`"r"`)})
			return nil
		})
		werr := out.Error
		if werr == nil || werr.Code != wire.CodeToolResultInvalid {
			t.Errorf("%s: the agent got %+v, want %s", c.content, out, wire.CodeToolResultInvalid)
			continue
		}
		if pe := wire.AsError(pageErr); pe == nil || pe.Code != wire.CodeToolResultInvalid {
			t.Errorf("%s: the page got %v", c.content, pageErr)
		}
		d := werr.Details.(map[string]any)
		if d["path"] != c.path || !strings.Contains(werr.Message, c.path) || !strings.Contains(werr.Message, c.inMessage) {
			t.Errorf("%.60s: path %v, message %q; want %s and %q", c.content, d["path"], werr.Message, c.path, c.inMessage)
		}
		if idx, ok := d["index"]; (c.index < 0) == ok || (ok && idx != c.index) {
			t.Errorf("%.60s: index %v, want %d", c.content, idx, c.index)
		}
		if f, _ := d["field"].(string); f != c.field {
			t.Errorf("%.60s: field %q, want %q", c.content, f, c.field)
		}
	}
}

// Every block type MCP lets a tool result hold is accepted, with the
// optional fields MCP gives it.
func TestMCPContentAcceptsEveryToolResultBlock(t *testing.T) {
	content := `[{"type":"text","text":"","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":1}},
		{"type":"image","data":"` + redPixel + `","mimeType":"image/png"},
		{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},
		{"type":"resource_link","uri":"https://example.test/a","name":"a","title":"A","description":"d","mimeType":"text/plain","size":12,
		 "icons":[{"src":"https://example.test/a.png","mimeType":"image/png","sizes":["48x48"],"theme":"light"}],
		 "annotations":{"audience":["user","assistant"],"priority":1,"lastModified":"2026-12-02T00:00:00Z"}},
		{"type":"resource","resource":{"uri":"test://embedded","mimeType":"text/plain","text":"hi"}},
		{"type":"resource","resource":{"uri":"test://blob","blob":"AAE="}},
		{"type":"text","text":"x","extra":"a field MCP does not define"}]`
	if p := checkMCPContent(json.RawMessage(content)); p != nil {
		t.Fatalf("refused: %s %s", p.path(), p.Message)
	}
	if p := checkMCPContent(json.RawMessage(`[]`)); p != nil {
		t.Fatalf("no blocks refused: %s", p.Message)
	}
}

// A refusal carries no content: the page is told, and the call still waits.
func TestMCPContentWithARefusalIsRefused(t *testing.T) {
	s, page := newCallingSession(t)
	out := callAndAnswer(t, s, page, ForMCP, func(id string) error {
		err := s.SubmitResult(wire.SubmitToolResultParams{ToolRequestID: id, MCPContent: json.RawMessage(`[]`),
			Refusal: &wire.Refusal{Code: "NO", Message: "no"}})
		if werr := wire.AsError(err); werr == nil || werr.Code != wire.CodeInvalidInput {
			t.Errorf("a refusal with content: %v", err)
		}
		return s.SubmitResult(wire.SubmitToolResultParams{ToolRequestID: id, Result: json.RawMessage(`1`)})
	})
	if !out.OK || string(out.Result) != "1" {
		t.Fatalf("%+v", out)
	}
}

// newCallingSession is a session with one tool, "read", and a turn running.
func newCallingSession(t *testing.T) (*Session, *recordingPage) {
	t.Helper()
	tbl := newTestTable(t)
	page := &recordingPage{}
	s, err := tbl.Create(context.Background(), page, wire.CreateSessionParams{Provider: "open", Skills: json.RawMessage(`{"guidance":"g","tools":[
		{"name":"read","description":"Reads.","argsSchema":{"type":"object","properties":{},"required":[]}}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	_, run, err := s.StartTurn("go", false)
	if err != nil {
		t.Fatal(err)
	}
	run()
	return s, page
}

var toolRequestIDIn = regexp.MustCompile(`"toolRequestId":"(tr_[^"]+)"`)

// callAndAnswer calls "read" for to, answers the page's tool_call with
// answer, and returns the call's answer.
func callAndAnswer(t *testing.T, s *Session, page *recordingPage, to Audience, answer func(id string) error) wire.AgentResult {
	t.Helper()
	done := make(chan wire.AgentResult, 1)
	go func() {
		done <- s.Call(context.Background(), CallRequest{Tool: "read", Args: json.RawMessage(`{}`), For: to})
	}()
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, f := range page.sent() {
			if bytes.Contains(f, []byte(`"event":"`+wire.EventToolCall+`"`)) {
				if m := toolRequestIDIn.FindSubmatch(f); m != nil {
					id = string(m[1])
				}
			}
		}
	}
	if id == "" {
		t.Fatal("the page never got the call")
	}
	if err := answer(id); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-done:
		return out
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not answered")
		return wire.AgentResult{}
	}
}

// What the check costs a result with one image near the message limit
// (768 KiB of base64) and one with a few small blocks; and, to weigh it,
// what decoding the image's submit_tool_result params costs the page's
// connection before the check runs.
func BenchmarkCheckMCPContent(b *testing.B) {
	b.Run("frame-decode-768KiB", func(b *testing.B) {
		frame := []byte(`{"sessionId":"s_1","toolRequestId":"tr_1","mcpContent":[{"type":"image","data":"` + strings.Repeat("AAAA", 768<<10/4) + `","mimeType":"image/png"}],"result":[]}`)
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			var p wire.SubmitToolResultParams
			if err := json.Unmarshal(frame, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct{ name, content string }{
		{"image-768KiB", `[{"type":"image","data":"` + strings.Repeat("AAAA", 768<<10/4) + `","mimeType":"image/png"}]`},
		{"three-small-blocks", `[{"type":"text","text":"Sales"},{"type":"image","data":"` + redPixel + `","mimeType":"image/png"},{"type":"resource_link","uri":"https://example.test/a","name":"a"}]`},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := json.RawMessage(c.content)
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if p := checkMCPContent(raw); p != nil {
					b.Fatal(p.Message)
				}
			}
		})
	}
}
