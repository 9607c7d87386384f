package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The openai provider end to end: a real `pedelec serve` whose settings point
// the provider at a scripted chat-completions server, and a page speaking the
// SDK's WebSocket protocol (docs/protocol.md) with an update_counter handler.

const oaSkills = `{
  "guidance": "Use update_counter to change the counter.",
  "tools": [{
    "name": "update_counter",
    "description": "Add delta to the page's counter and return the new count.",
    "argsSchema": {"type":"object","properties":{"delta":{"type":"integer"}},"required":["delta"]},
    "timeoutMs": 10000
  }]
}`

// oaServe starts serve with a settings file pointing openai at baseURL.
func oaServe(t *testing.T, baseURL string, args ...string) *testenv.Server {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	content := fmt.Sprintf("[providers.openai]\nbase_url = %q\ndefault_model = %q\n", baseURL, modelserver.ChatModel)
	if err := os.WriteFile(cfg, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return testenv.Serve(t, append([]string{"--config", cfg, "--turn-timeout", "20s"}, args...))
}

// oaSession creates an openai session; model may be empty (default_model).
func oaSession(page *wspage.Page, model string) string {
	return page.CreateSession(wire.CreateSessionParams{Provider: "openai", Model: model, Skills: json.RawMessage(oaSkills)}).SessionID
}

// oaCounter is the page's state and its update_counter handler.
type oaCounter struct {
	mu    sync.Mutex
	count int
}

func (c *oaCounter) handle(args json.RawMessage) any {
	var a struct{ Delta int }
	_ = json.Unmarshal(args, &a)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count += a.Delta
	return map[string]any{"count": c.count}
}

func (c *oaCounter) value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

func TestOpenAIProviderEndToEnd(t *testing.T) {
	model := modelserver.NewChat(t,
		modelserver.ChatStep{Text: "Adding two. ", Calls: []modelserver.ChatFunctionCall{{Name: "update_counter", Args: `{"delta":2}`}}},
		modelserver.ChatSay("The counter is 2."),
	)
	srv := oaServe(t, model.URL)
	page := wspage.Dial(t, srv.WSURL, srv.URL)

	var providers wire.ListProvidersResult
	_ = json.Unmarshal(page.MustCall(wire.MethodListProviders, map[string]any{}), &providers)
	var listed bool
	for _, p := range providers.Providers {
		if p.Name == "openai" {
			listed = p.Available && p.Path == model.URL && p.DefaultModel == modelserver.ChatModel
		}
	}
	if !listed {
		t.Errorf("list_providers does not show openai available at %s: %+v", model.URL, providers)
	}

	sid := oaSession(page, "")
	counter := &oaCounter{}
	page.Handle("update_counter", counter.handle)

	// The model calls update_counter; the page's handler runs; the result
	// goes back to the model; the final text reaches the chat.
	turn := oaRunTurn(t, page, sid, "Add two to the counter.")
	if !turn.done.OK {
		t.Fatalf("turn 1 failed: %+v (errors %+v)", turn.done.Error, turn.errors)
	}
	if counter.value() != 2 || len(turn.toolCalls) != 1 || turn.toolCalls[0].Tool != "update_counter" {
		t.Fatalf("counter %d, tool calls %+v", counter.value(), turn.toolCalls)
	}
	if turn.chat != "Adding two. The counter is 2." {
		t.Errorf("chat = %q", turn.chat)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := reqs[0].ToolNames(); len(got) != 1 || got[0] != "update_counter" {
		t.Errorf("tools offered = %v", got)
	}
	if !strings.Contains(reqs[0].LastUser(), "Add two to the counter.") || !strings.Contains(reqs[0].LastUser(), "update_counter") {
		t.Errorf("the first prompt lacks the message or the tool index:\n%s", reqs[0].LastUser())
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || res[0].Content != `{"ok":true,"result":{"count":2}}` {
		t.Errorf("the next model request carries %+v, want the handler's result", res)
	}

	// A second turn continues the same conversation.
	model.Push(modelserver.ChatSay("You asked me to add two; it is 2."))
	turn = oaRunTurn(t, page, sid, "What did I ask?")
	if !turn.done.OK || turn.chat != "You asked me to add two; it is 2." {
		t.Fatalf("turn 2: %+v chat %q", turn.done, turn.chat)
	}
	second := model.Requests()[2]
	if conv := second.Conversation(); second.LastUser() != "What did I ask?" || len(conv) != 5 || conv[3].Content != "The counter is 2." {
		t.Errorf("turn 2 did not continue the conversation: %+v", conv)
	}

	// An invalid call comes back to the model as TOOL_ARGS_INVALID and never
	// reaches the page; the model corrects itself.
	model.Push(
		modelserver.ChatCall("update_counter", `{"delta":"three"}`),
		modelserver.ChatCall("update_counter", `{"delta":3}`),
		modelserver.ChatSay("Now 5."),
	)
	turn = oaRunTurn(t, page, sid, "Add three.")
	if !turn.done.OK || counter.value() != 5 || len(turn.toolCalls) != 1 {
		t.Fatalf("turn 3: %+v counter %d calls %+v", turn.done, counter.value(), turn.toolCalls)
	}
	reqs = model.Requests()
	if res := reqs[4].ToolResults(); len(res) != 1 || !strings.HasPrefix(res[0].Content, `{"ok":false,"error":{"code":"TOOL_ARGS_INVALID"`) {
		t.Errorf("the invalid call came back as %+v", res)
	}
	if res := reqs[5].ToolResults(); len(res) != 1 || res[0].Content != `{"ok":true,"result":{"count":5}}` {
		t.Errorf("the corrected call came back as %+v", res)
	}

	// A model-server error becomes a session error with its message.
	model.Push(modelserver.ChatFail(http.StatusInternalServerError, "the model fell over"))
	turn = oaRunTurn(t, page, sid, "Again.")
	if turn.done.OK || turn.done.Error == nil || turn.done.Error.Code != wire.CodeProviderError || !strings.Contains(turn.done.Error.Message, "the model fell over") {
		t.Errorf("done after a model error = %+v", turn.done)
	}
	if len(turn.errors) != 1 || turn.errors[0].Code != wire.CodeProviderError {
		t.Errorf("error events = %+v", turn.errors)
	}

	// end() in mid-turn: the request to the model is dropped at once.
	model.Push(modelserver.ChatHang())
	n := len(model.Requests())
	page.SendText(sid, "Think forever.")
	if !model.AwaitRequests(n+1, 5*time.Second) {
		t.Fatal("the model got no request")
	}
	testenv.Await(t, 5*time.Second, "the model to hold the request", func() bool { return model.Hanging() == 1 })
	begin := time.Now()
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	page.AwaitEvent(5*time.Second, "ended", func(e wire.Event) bool { return e.Event == wire.EventEnded && e.SessionID == sid })
	testenv.Await(t, 2*time.Second, "the model request to be cancelled", func() bool { return model.Hanging() == 0 })
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("end() took %s", d)
	}
}

func TestOpenAIProviderModelErrors(t *testing.T) {
	t.Run("unknown model", func(t *testing.T) {
		srv := oaServe(t, modelserver.NewChat(t).URL)
		page := wspage.Dial(t, srv.WSURL, srv.URL)
		turn := oaRunTurn(t, page, oaSession(page, "no-such-model"), "hello")
		if turn.done.OK || turn.done.Error == nil || turn.done.Error.Code != wire.CodeModelNotFound || !strings.Contains(turn.done.Error.Message, `"no-such-model"`) {
			t.Errorf("done = %+v, want MODEL_NOT_FOUND naming the model", turn.done.Error)
		}
	})
	t.Run("server down at create_session", func(t *testing.T) {
		down := modelserver.NewChat(t)
		down.Close()
		srv := oaServe(t, down.URL)
		page := wspage.Dial(t, srv.WSURL, srv.URL)
		_, werr := page.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "openai", Skills: json.RawMessage(oaSkills)})
		if werr == nil || werr.Code != wire.CodeProviderUnavailable || !strings.Contains(werr.Message, "no model server at "+down.URL) {
			t.Errorf("create_session = %+v, want PROVIDER_UNAVAILABLE naming the URL", werr)
		}
	})
	t.Run("server goes down mid-session", func(t *testing.T) {
		model := modelserver.NewChat(t)
		srv := oaServe(t, model.URL)
		page := wspage.Dial(t, srv.WSURL, srv.URL)
		sid := oaSession(page, "")
		model.Close()
		turn := oaRunTurn(t, page, sid, "hello")
		if turn.done.OK || turn.done.Error == nil || turn.done.Error.Code != wire.CodeEndpointUnreachable || !strings.Contains(turn.done.Error.Message, model.URL) {
			t.Errorf("done = %+v, want ENDPOINT_UNREACHABLE naming the URL", turn.done.Error)
		}
	})
}

func TestOpenAIProviderDottedNamesAndToolTimeout(t *testing.T) {
	const skills = `{
	  "guidance": "",
	  "tools": [
	    {"name": "editor.replace_selection", "description": "Replace the selected text.",
	     "argsSchema": {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
	    {"name": "ask_user", "description": "Ask the user; waits for an answer.",
	     "argsSchema": {"type":"object","properties":{}}, "timeoutMs": 300}
	  ]
	}`
	model := modelserver.NewChat(t,
		modelserver.ChatCall("editor_replace_selection", `{"text":"hello"}`),
		modelserver.ChatCall("ask_user", `{}`),
		modelserver.ChatSay("The user did not answer."),
	)
	srv := oaServe(t, model.URL)
	page := wspage.Dial(t, srv.WSURL, srv.URL)
	var replaced []string
	var mu sync.Mutex
	page.Handle("editor.replace_selection", func(args json.RawMessage) any {
		var a struct{ Text string }
		_ = json.Unmarshal(args, &a)
		mu.Lock()
		replaced = append(replaced, a.Text)
		mu.Unlock()
		return map[string]any{"replaced": true}
	})
	// ask_user has no handler here: the page never answers it.
	sid := page.CreateSession(wire.CreateSessionParams{Provider: "openai", Skills: json.RawMessage(skills)}).SessionID
	turn := oaRunTurn(t, page, sid, "Replace the selection, then ask me.")
	if !turn.done.OK || turn.chat != "The user did not answer." {
		t.Fatalf("turn: %+v chat %q", turn.done, turn.chat)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(replaced) != 1 || replaced[0] != "hello" {
		t.Errorf("editor.replace_selection ran with %v", replaced)
	}
	if len(turn.toolCalls) != 2 || turn.toolCalls[0].Tool != "editor.replace_selection" || turn.toolCalls[1].Tool != "ask_user" {
		t.Errorf("the page saw %+v", turn.toolCalls)
	}
	reqs := model.Requests()
	if got := strings.Join(reqs[0].ToolNames(), ","); got != "editor_replace_selection,ask_user" {
		t.Errorf("functions offered: %s", got)
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || res[0].Content != `{"ok":true,"result":{"replaced":true}}` {
		t.Errorf("replace result: %+v", res)
	}
	if res := reqs[2].ToolResults(); len(res) != 1 || !strings.HasPrefix(res[0].Content, `{"ok":false,"error":{"code":"TOOL_TIMEOUT"`) {
		t.Errorf("the unanswered call came back as %+v, want TOOL_TIMEOUT", res)
	}
}

func TestOpenAIProviderPrepare(t *testing.T) {
	model := modelserver.NewChat(t, modelserver.ChatSay("ready"), modelserver.ChatSay("Hello!"))
	srv := oaServe(t, model.URL)
	page := wspage.Dial(t, srv.WSURL, srv.URL)
	sid := oaSession(page, "")
	var started wire.TurnStarted
	_ = json.Unmarshal(page.MustCall(wire.MethodPrepare, wire.SessionParams{SessionID: sid}), &started)
	if done := page.AwaitDone(started.TurnID, 10*time.Second); !done.OK || !done.Prepare {
		t.Fatalf("prepare: %+v", done)
	}
	if chat := page.Chat(started.TurnID); chat != "" {
		t.Errorf("prepare's chat reached the page: %q", chat)
	}
	turn := oaRunTurn(t, page, sid, "Hi")
	if !turn.done.OK || turn.chat != "Hello!" {
		t.Fatalf("turn after prepare: %+v %q", turn.done, turn.chat)
	}
	// The rules and tool index went to the model with the warm-up; the turn
	// after it continues that conversation with the bare message.
	conv := model.Requests()[1].Conversation()
	if len(conv) != 3 || !strings.Contains(conv[0].Content, "update_counter") || conv[2].Content != "Hi" {
		t.Errorf("the turn after prepare sent %+v", conv)
	}
}

// TestOpenAIInBrowser runs the same page as the codex and claude browser
// tests (browserPage): Chromium imports the SDK from Core, its inline
// update_counter handler answers the model's function call, two turns reach
// onChat, and end() in a second session stops a turn that waits on the page.
func TestOpenAIInBrowser(t *testing.T) {
	model := modelserver.NewChat(t,
		modelserver.ChatCall("update_counter", `{"delta":2}`),
		modelserver.ChatSay("The counter is now 2."),
		modelserver.ChatCall("update_counter", `{"delta":"two"}`),
		modelserver.ChatSay("That did not work."),
		modelserver.ChatCall("update_counter", `{"delta":1}`),
	)
	serve := func(origin string) *testenv.Server { return oaServe(t, model.URL, "--allow-origin", origin) }
	rep := runBrowserPage(t, "openai", 60*time.Second, serve, nil)
	if rep.MidTurn != wire.CodeSessionEnded || rep.HangingStatus != string(wire.StatusEnded) {
		t.Errorf("after end() mid-turn: sendText %q, status %q; want %s, %s", rep.MidTurn, rep.HangingStatus, wire.CodeSessionEnded, wire.StatusEnded)
	}
	checkBrowserTurns(t, rep)
	reqs := model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("model requests = %d, want 5", len(reqs))
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || res[0].Content != `{"ok":true,"result":{"value":2}}` {
		t.Errorf("the model's next request lacks the handler's result: %+v", res)
	}
	if conv := reqs[2].Conversation(); len(conv) != 5 || conv[3].Content != "The counter is now 2." {
		t.Errorf("turn 2 did not continue turn 1's conversation: %+v", conv)
	}
	if res := reqs[3].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, string(wire.CodeToolArgsInvalid)) {
		t.Errorf("the invalid call's result lacks %s: %+v", wire.CodeToolArgsInvalid, res)
	}
}

// oaTurn is what the page saw of one turn.
type oaTurn struct {
	chat      string
	toolCalls []wire.ToolCallData
	errors    []*wire.Error
	done      wire.DoneData
}

// oaRunTurn sends text and waits for the turn's done event; the page's
// handlers answer tool calls meanwhile.
func oaRunTurn(t *testing.T, page *wspage.Page, sessionID, text string) oaTurn {
	t.Helper()
	turnID := page.SendText(sessionID, text)
	out := oaTurn{done: page.AwaitDone(turnID, 30*time.Second), chat: page.Chat(turnID), errors: page.Errors(turnID)}
	for _, e := range page.Events() {
		if e.TurnID == turnID && e.Event == wire.EventToolCall {
			var c wire.ToolCallData
			_ = json.Unmarshal(e.Data.(json.RawMessage), &c)
			out.toolCalls = append(out.toolCalls, c)
		}
	}
	return out
}
