package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const noteSkills = `{"guidance":"g","tools":[{"name":"note","description":"Keep a note.",
 "argsSchema":{"type":"object","properties":{"text":{"type":"string","maxLength":60},"n":{"type":"number"}},"required":["text"]}}]}`

// noteSession is a page with a running turn on the hold provider, whose
// agent calls "note" through the agent endpoint, as `pedelec tool-call` does.
func noteSession(t *testing.T) (*wspage.Page, *session.Session, *agentclient.Client) {
	core, srv := newTestCore(t, holdProvider{})
	p := wspage.Dial(t, wsURL(srv), "")
	info := p.CreateSession(wire.CreateSessionParams{Provider: "hold", Skills: json.RawMessage(noteSkills)})
	p.SendText(info.SessionID, "go")
	s, werr := core.session(info.SessionID)
	if werr != nil {
		t.Fatal(werr)
	}
	return p, s, &agentclient.Client{BaseURL: srv.URL, Secret: s.Secret(), HTTP: srv.Client()}
}

// A call's arguments reach the page, and its result the agent, as the
// bytes the other side wrote: Core decodes the arguments once, to check
// them, and re-encodes neither (docs/protocol.md, "A call's JSON").
// Before, the page got the arguments compacted and HTML-escaped, and the
// agent the result the same way.
func TestCallJSONArrivesAsWritten(t *testing.T) {
	p, s, client := noteSession(t)
	sessionID := s.ID()
	args := "{\n\t\"text\" : \"<b>Fish & chips</b>\u2028caf\\u00e9 \\\"q\\\"\",\n  \"n\": 1.50E+1 }"
	result := "{ \"kept\" : true,\t\"html\": \"<i>&amp;</i>\u2028\", \"n\": [1.0, -0, 2e-3] }"

	done := make(chan wire.AgentResult, 1)
	go func() {
		done <- client.ToolCall(context.Background(), sessionID, "note", json.RawMessage("  "+args+"\n"))
	}()
	call := toolCall(t, p, "note", 1)
	if string(call.Args) != args {
		t.Errorf("the page got the arguments\n%s\nthe agent sent\n%s", call.Args, args)
	}
	frame := `{"type":"request","id":99,"method":"submit_tool_result","params":{"sessionId":"` + sessionID +
		`","toolRequestId":"` + call.ToolRequestID + `","result":` + result + `}}`
	if err := p.Send([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if !res.OK || string(res.Result) != result {
		t.Errorf("the agent got %+v (result %s)\nthe page sent %s", res, res.Result, result)
	}
	var out bytes.Buffer
	agentclient.Print(&out, res)
	if want := `{"ok":true,"result":` + result + "}\n"; out.String() != want {
		t.Errorf("tool-call printed\n%s\nwant\n%s", out.String(), want)
	}
}

// The bytes the page gets are the bytes the validator checked, so the two
// must read them alike: a repeated key is refused (readers differ on which
// value counts, so what the user is shown could differ from what runs),
// and bytes that are not UTF-8, which the validator would read as U+FFFD
// and the page's socket would not take, are refused.
func TestCallJSONValidatedAsThePageReadsIt(t *testing.T) {
	p, s, client := noteSession(t)
	p.Handle("note", func(json.RawMessage) any { return "ok" })
	delivered := 0
	for _, c := range []struct {
		args string
		page string // what the page gets; "" for a refused call
	}{
		{`{"text": 5, "text": "last wins"}`, ""},
		{`{"text": "last wins", "text": 5}`, ""},
		{`{"text": "once"}`, `{"text": "once"}`},
		{"{\"text\": \"caf\xe9\"}", ""}, // Latin-1, not UTF-8
	} {
		res := client.ToolCall(context.Background(), s.ID(), "note", json.RawMessage(c.args))
		if c.page == "" {
			if res.OK || res.Error.Code != wire.CodeToolArgsInvalid {
				t.Errorf("%q: %+v %v, want TOOL_ARGS_INVALID", c.args, res, res.Error)
			}
			continue
		}
		if !res.OK {
			t.Errorf("%q: %v", c.args, res.Error)
			continue
		}
		delivered++
		if got := toolCall(t, p, "note", delivered); string(got.Args) != c.page {
			t.Errorf("%q: the page got %s, want %s", c.args, got.Args, c.page)
		}
	}
	// A byte order mark cannot come through the agent endpoint (its JSON
	// body would not parse), but an in-process provider may hand one over:
	// the validator skips it, and so must the bytes the page gets.
	if _, err := s.CallTool(context.Background(), "note", json.RawMessage("\uFEFF {\"text\": \"marked\"}\n")); err != nil {
		t.Fatal(err)
	}
	delivered++
	if got := toolCall(t, p, "note", delivered); string(got.Args) != `{"text": "marked"}` {
		t.Errorf("the page got %q", got.Args)
	}
}
