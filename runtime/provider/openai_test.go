package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// fakeBroker stands in for Core's broker: it records calls and answers
// update_counter like a page would, with Core's error codes otherwise.
type fakeBroker struct {
	mu    sync.Mutex
	calls []brokerCall
	count int
	// block makes CallTool wait for ctx, like a handler that never answers.
	block bool
	// answer overrides the default behaviour when set.
	answer func(tool string, args json.RawMessage) (json.RawMessage, error)
}

type brokerCall struct {
	Tool string
	Args string
}

func (b *fakeBroker) CallTool(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	b.mu.Lock()
	b.calls = append(b.calls, brokerCall{tool, string(args)})
	b.mu.Unlock()
	if b.block {
		<-ctx.Done()
		return nil, wire.Errorf(wire.CodeSessionEnded, "session ended")
	}
	if b.answer != nil {
		return b.answer(tool, args)
	}
	switch tool {
	case "update_counter":
		var a struct {
			Delta *int `json:"delta"`
		}
		if err := json.Unmarshal(args, &a); err != nil || a.Delta == nil {
			return nil, wire.Errorf(wire.CodeToolArgsInvalid, "arguments do not match the schema of update_counter").
				WithDetails([]map[string]string{{"path": "delta", "expected": "integer", "got": string(args)}})
		}
		b.mu.Lock()
		b.count += *a.Delta
		n := b.count
		b.mu.Unlock()
		return json.RawMessage(fmt.Sprintf(`{"count":%d}`, n)), nil
	case "editor.replace_selection":
		return json.RawMessage(`{"replaced":true}`), nil
	}
	return nil, wire.Errorf(wire.CodeToolNotFound, "no tool %q in this session", tool)
}

func (b *fakeBroker) Calls() []brokerCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]brokerCall(nil), b.calls...)
}

var testTools = []schema.Tool{
	{Name: "update_counter", Description: "Add delta to the page's counter.", ArgsSchema: json.RawMessage(`{"type":"object","properties":{"delta":{"type":"integer"}},"required":["delta"]}`)},
	{Name: "editor.replace_selection", Description: "Replace the selected text.", ArgsSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
}

// recorder collects a turn's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) chat() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.events {
		b.WriteString(e.ChatDelta)
	}
	return b.String()
}

func (r *recorder) threadIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, e := range r.events {
		if e.ProviderThreadID != "" {
			ids = append(ids, e.ProviderThreadID)
		}
	}
	return ids
}

func testTurn(broker ToolCaller, prompt, resume string) *Turn {
	return &Turn{SessionID: "s_test", TurnID: "t_1", Prompt: prompt, ResumeID: resume, Model: modelserver.ChatModel, Tools: testTools, Calls: broker}
}

func runTurn(t *testing.T, p *OpenAI, turn *Turn) (*recorder, error) {
	t.Helper()
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := p.RunTurn(ctx, turn, rec.emit)
	return rec, err
}

func wantCode(t *testing.T, err error, code wire.Code, mentions ...string) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("error = %v (%T), want a *wire.Error with code %s", err, err, code)
	}
	if we.Code != code {
		t.Fatalf("code = %s (%s), want %s", we.Code, we.Message, code)
	}
	for _, m := range mentions {
		if !strings.Contains(we.Message, m) {
			t.Errorf("message %q does not mention %q", we.Message, m)
		}
	}
}

func TestOpenAIToolCallRoundTrip(t *testing.T) {
	srv := modelserver.NewChat(t,
		modelserver.ChatStep{Text: "Adding two. ", Calls: []modelserver.ChatFunctionCall{{Name: "update_counter", Args: `{"delta":2}`}}},
		modelserver.ChatSay("The counter is now 2."),
	)
	p := newOpenAI(Settings{BaseURL: srv.URL})
	broker := &fakeBroker{}
	rec, err := runTurn(t, p, testTurn(broker, "PROMPT: add two", ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := broker.Calls(); len(got) != 1 || got[0].Tool != "update_counter" || got[0].Args != `{"delta":2}` {
		t.Fatalf("broker calls = %+v", got)
	}
	if got := rec.chat(); got != "Adding two. The counter is now 2." {
		t.Errorf("chat = %q", got)
	}
	if ids := rec.threadIDs(); len(ids) != 1 || ids[0] != "s_test" {
		t.Errorf("provider thread ids = %v, want [s_test]", ids)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if !first.Stream || first.Model != modelserver.ChatModel || first.LastUser() != "PROMPT: add two" {
		t.Errorf("first request: stream=%v model=%q user=%q", first.Stream, first.Model, first.LastUser())
	}
	if got := strings.Join(first.ToolNames(), ","); got != "update_counter,editor_replace_selection" {
		t.Errorf("tools offered = %s", got)
	}
	if string(first.Tools[0].Function.Parameters) != string(testTools[0].ArgsSchema) {
		t.Errorf("parameters = %s", first.Tools[0].Function.Parameters)
	}
	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].Content != `{"ok":true,"result":{"count":2}}` {
		t.Fatalf("tool results in the next request = %+v", results)
	}
	assistant := reqs[1].Messages[len(reqs[1].Messages)-2]
	if assistant.Role != "assistant" || len(assistant.ToolCalls) != 1 || assistant.ToolCalls[0].ID != results[0].ToolCallID {
		t.Errorf("the tool result does not answer the assistant's call: %+v / %+v", assistant, results[0])
	}
}

func TestOpenAIMapsDottedToolNamesBothWays(t *testing.T) {
	srv := modelserver.NewChat(t,
		modelserver.ChatCall("editor_replace_selection", `{"text":"hi"}`),
		modelserver.ChatSay("done"),
	)
	p := newOpenAI(Settings{BaseURL: srv.URL})
	broker := &fakeBroker{}
	if _, err := runTurn(t, p, testTurn(broker, "go", "")); err != nil {
		t.Fatal(err)
	}
	if got := broker.Calls(); len(got) != 1 || got[0].Tool != "editor.replace_selection" {
		t.Fatalf("broker calls = %+v, want editor.replace_selection", got)
	}
	desc := srv.Requests()[0].Tools[1].Function.Description
	if !strings.Contains(desc, `"editor.replace_selection"`) {
		t.Errorf("description of a renamed tool should name the Pedelec tool: %q", desc)
	}
}

func TestOpenAIInvalidArgsGoBackToTheModel(t *testing.T) {
	srv := modelserver.NewChat(t,
		modelserver.ChatCall("update_counter", `{"delta":"two"}`),
		modelserver.ChatCall("update_counter", `{"delta":`), // not JSON at all
		modelserver.ChatCall("no_such_tool", `{}`),
		modelserver.ChatCall("update_counter", `{"delta":2}`),
		modelserver.ChatSay("fixed it"),
	)
	p := newOpenAI(Settings{BaseURL: srv.URL})
	broker := &fakeBroker{}
	rec, err := runTurn(t, p, testTurn(broker, "go", ""))
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, want := range []string{
		`{"ok":false,"error":{"code":"TOOL_ARGS_INVALID"`,
		`{"ok":false,"error":{"code":"TOOL_ARGS_INVALID","message":"the arguments of update_counter are not valid JSON`,
		`{"ok":false,"error":{"code":"TOOL_NOT_FOUND"`,
		`{"ok":true,"result":{"count":2}}`,
	} {
		res := reqs[i+1].ToolResults()
		if len(res) != 1 || !strings.HasPrefix(res[0].Content, want) {
			t.Errorf("request %d tool result = %+v, want prefix %s", i+2, res, want)
		}
	}
	if !strings.Contains(reqs[1].ToolResults()[0].Content, `"path":"delta"`) {
		t.Errorf("TOOL_ARGS_INVALID should carry the violations: %s", reqs[1].ToolResults()[0].Content)
	}
	// The unparseable call never reached the broker.
	if n := len(broker.Calls()); n != 3 {
		t.Errorf("broker saw %d calls, want 3", n)
	}
	if rec.chat() != "fixed it" {
		t.Errorf("chat = %q", rec.chat())
	}
}

func TestOpenAIAccumulatesInterleavedToolCallFragments(t *testing.T) {
	// Two calls in one answer, their fragments interleaved by index, the
	// second call's id missing, as some servers stream them.
	raw := strings.Join([]string{
		`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"update_","arguments":""}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"type":"function","function":{"name":"update_counter","arguments":"{\"del"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"counter","arguments":"{\"delta\":"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"ta\":3}"}}]}}]}`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
		`: keep-alive comment`,
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`data: [DONE]`,
	}, "\n\n") + "\n\n"
	srv := modelserver.NewChat(t, modelserver.ChatRaw(raw), modelserver.ChatSay("4"))
	p := newOpenAI(Settings{BaseURL: srv.URL})
	broker := &fakeBroker{}
	if _, err := runTurn(t, p, testTurn(broker, "go", "")); err != nil {
		t.Fatal(err)
	}
	got := broker.Calls()
	if len(got) != 2 || got[0] != (brokerCall{"update_counter", `{"delta":1}`}) || got[1] != (brokerCall{"update_counter", `{"delta":3}`}) {
		t.Fatalf("broker calls = %+v", got)
	}
	res := srv.Requests()[1].ToolResults()
	if len(res) != 2 || res[0].ToolCallID != "call_a" || res[1].ToolCallID == "" || res[1].ToolCallID == "call_a" {
		t.Errorf("tool results = %+v", res)
	}
}

func TestOpenAIStepLimit(t *testing.T) {
	srv := modelserver.NewChat(t,
		modelserver.ChatCall("update_counter", `{"delta":1}`),
		modelserver.ChatCall("update_counter", `{"delta":1}`),
		modelserver.ChatCall("update_counter", `{"delta":1}`),
	)
	p := newOpenAI(Settings{BaseURL: srv.URL, Args: []string{"--max-steps=2"}})
	_, err := runTurn(t, p, testTurn(&fakeBroker{}, "go", ""))
	wantCode(t, err, wire.CodeStepLimit, "2 steps", modelserver.ChatModel)
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestOpenAIKeepsTheConversationAcrossTurns(t *testing.T) {
	srv := modelserver.NewChat(t,
		modelserver.ChatCall("update_counter", `{"delta":2}`),
		modelserver.ChatSay("It is 2."),
		modelserver.ChatSay("You asked me to add two."),
		modelserver.ChatSay("Fresh start."),
	)
	p := newOpenAI(Settings{BaseURL: srv.URL})
	broker := &fakeBroker{}
	if _, err := runTurn(t, p, testTurn(broker, "FIRST PROMPT", "")); err != nil {
		t.Fatal(err)
	}
	if _, err := runTurn(t, p, testTurn(broker, "what did I ask?", "s_test")); err != nil {
		t.Fatal(err)
	}
	second := srv.Requests()[2]
	var roles []string
	for _, m := range second.Conversation() {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,assistant,user" {
		t.Fatalf("second turn's messages = %s", got)
	}
	if conv := second.Conversation(); conv[0].Content != "FIRST PROMPT" || conv[3].Content != "It is 2." || second.LastUser() != "what did I ask?" {
		t.Errorf("second turn's conversation = %+v", conv)
	}
	// A first turn (no resume id) starts a new conversation.
	if _, err := runTurn(t, p, testTurn(broker, "NEW FIRST PROMPT", "")); err != nil {
		t.Fatal(err)
	}
	if third := srv.Requests()[3]; len(third.Conversation()) != 1 {
		t.Errorf("a first turn should start over, got %d messages", len(third.Conversation()))
	}
}

func TestOpenAIResumeWithoutConversationWarns(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatSay("hello"))
	p := newOpenAI(Settings{BaseURL: srv.URL})
	rec, err := runTurn(t, p, testTurn(&fakeBroker{}, "hi again", "s_test"))
	if err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, e := range rec.events {
		warned = warned || strings.Contains(e.Warning, "no longer in memory")
	}
	if !warned {
		t.Errorf("no warning in %+v", rec.events)
	}
}

func TestOpenAIForget(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatSay("one"), modelserver.ChatSay("two"))
	p := newOpenAI(Settings{BaseURL: srv.URL})
	if _, err := runTurn(t, p, testTurn(&fakeBroker{}, "first", "")); err != nil {
		t.Fatal(err)
	}
	p.Forget("s_test")
	if _, err := runTurn(t, p, testTurn(&fakeBroker{}, "second", "s_test")); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()[1].Conversation()); n != 1 {
		t.Errorf("after Forget the conversation has %d messages, want 1", n)
	}
}

func TestOpenAIErrors(t *testing.T) {
	down := "http://" + closedPort(t) + "/v1"
	cases := []struct {
		name     string
		steps    []modelserver.ChatStep
		settings func(srvURL string) Settings
		model    string
		code     wire.Code
		mentions []string
	}{
		{name: "unreachable", settings: func(string) Settings { return Settings{BaseURL: down} }, code: wire.CodeEndpointUnreachable, mentions: []string{down, "refused"}},
		{name: "model required", model: "-", code: wire.CodeModelRequired, mentions: []string{"default_model"}},
		{name: "auth refused", settings: func(u string) Settings { return Settings{BaseURL: u, APIKey: "wrong"} }, code: wire.CodeAuthFailed, mentions: []string{"/v1/chat/completions", "401", "Incorrect API key"}},
		{name: "unknown model", model: "llama-nope", code: wire.CodeModelNotFound, mentions: []string{`"llama-nope"`, "/v1/chat/completions", "not found"}},
		{name: "404", steps: []modelserver.ChatStep{modelserver.ChatFail(404, "no such route")}, code: wire.CodeModelNotFound, mentions: []string{modelserver.ChatModel, "404"}},
		{name: "server error", steps: []modelserver.ChatStep{modelserver.ChatFail(500, "the GPU caught fire")}, code: wire.CodeProviderError, mentions: []string{"500", "the GPU caught fire"}},
		{name: "error in stream", steps: []modelserver.ChatStep{{StreamError: true, Message: "context length exceeded"}}, code: wire.CodeProviderError, mentions: []string{"context length exceeded"}},
		{name: "model not found in stream", steps: []modelserver.ChatStep{{StreamError: true, Message: `model "x" not found`}}, code: wire.CodeModelNotFound},
		{name: "malformed json", steps: []modelserver.ChatStep{modelserver.ChatRaw("data: {\"choices\":[\n\n")}, code: wire.CodeBadModelResponse, mentions: []string{"not JSON", modelserver.ChatModel}},
		{name: "not sse", steps: []modelserver.ChatStep{modelserver.ChatRaw("<html>gateway</html>\n")}, code: wire.CodeBadModelResponse, mentions: []string{"server-sent-events"}},
		{name: "cut off", steps: []modelserver.ChatStep{modelserver.ChatRaw("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")}, code: wire.CodeBadModelResponse, mentions: []string{"[DONE]"}},
		{name: "call without name", steps: []modelserver.ChatStep{modelserver.ChatCall("", `{}`)}, code: wire.CodeBadModelResponse, mentions: []string{"without a function name"}},
		{name: "bad settings", settings: func(string) Settings { return Settings{Args: []string{"--fast"}} }, code: wire.CodeProviderUnavailable, mentions: []string{"--fast"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := modelserver.NewChat(t, tc.steps...)
			srv.RequireKey("right")
			s := Settings{BaseURL: srv.URL, APIKey: "right"}
			if tc.settings != nil {
				s = tc.settings(srv.URL)
			}
			turn := testTurn(&fakeBroker{}, "go", "")
			switch tc.model {
			case "":
			case "-":
				turn.Model = ""
			default:
				turn.Model = tc.model
			}
			_, err := runTurn(t, newOpenAI(s), turn)
			wantCode(t, err, tc.code, tc.mentions...)
		})
	}
}

func TestOpenAIKeyFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "from-env")
	srv := modelserver.NewChat(t, modelserver.ChatSay("ok"))
	srv.RequireKey("from-env")
	p := newOpenAI(Settings{BaseURL: srv.URL + "/"})
	turn := testTurn(&fakeBroker{}, "go", "")
	if _, err := runTurn(t, p, turn); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Model != modelserver.ChatModel || r.Authorization != "Bearer from-env" {
		t.Errorf("model %q, authorization %q", r.Model, r.Authorization)
	}
}

func TestOpenAIReadsANonStreamedAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"whole answer"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	rec, err := runTurn(t, newOpenAI(Settings{BaseURL: srv.URL}), testTurn(&fakeBroker{}, "go", ""))
	if err != nil {
		t.Fatal(err)
	}
	if rec.chat() != "whole answer" {
		t.Errorf("chat = %q", rec.chat())
	}
}

func TestOpenAICancelWhileTheModelThinks(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatHang())
	p := newOpenAI(Settings{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.RunTurn(ctx, testTurn(&fakeBroker{}, "go", ""), func(Event) {}) }()
	if !srv.AwaitRequests(1, 5*time.Second) {
		t.Fatal("no request")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("RunTurn did not return within 1s of cancel")
	}
}

func TestOpenAICancelWhileAToolRuns(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatCall("update_counter", `{"delta":2}`), modelserver.ChatSay("never"))
	p := newOpenAI(Settings{BaseURL: srv.URL})
	broker := &fakeBroker{block: true}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.RunTurn(ctx, testTurn(broker, "go", ""), func(Event) {}) }()
	deadline := time.Now().Add(5 * time.Second)
	for len(broker.Calls()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("RunTurn did not return within 1s of cancel")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after cancel, want 1", n)
	}
	// The unanswered call is not kept: the next turn's conversation stays valid.
	p.mu.Lock()
	msgs := p.convs["s_test"].messages
	p.mu.Unlock()
	if len(msgs) != 1 || msgs[0].Role != "user" {
		t.Errorf("conversation after cancel = %+v", msgs)
	}
}

func TestOpenAISessionEndedStopsTheLoop(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatCall("update_counter", `{"delta":2}`), modelserver.ChatSay("never"))
	broker := &fakeBroker{answer: func(string, json.RawMessage) (json.RawMessage, error) {
		return nil, wire.Errorf(wire.CodeSessionEnded, "the session ended")
	}}
	_, err := runTurn(t, newOpenAI(Settings{BaseURL: srv.URL}), testTurn(broker, "go", ""))
	wantCode(t, err, wire.CodeSessionEnded)
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestOpenAIWarmupStartsTheConversation(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatSay("ready"), modelserver.ChatSay("hello"))
	p := newOpenAI(Settings{BaseURL: srv.URL})
	turn := testTurn(&fakeBroker{}, "RULES AND TOOLS. This is a warm-up.", "")
	turn.Warmup = true
	rec, err := runTurn(t, p, turn)
	if err != nil {
		t.Fatal(err)
	}
	if ids := rec.threadIDs(); len(ids) != 1 {
		t.Fatalf("thread ids after warm-up = %v", ids)
	}
	// Core then sends only the user's message; the rules are already there.
	if _, err := runTurn(t, p, testTurn(&fakeBroker{}, "hi", rec.threadIDs()[0])); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Conversation()
	if len(msgs) != 3 || msgs[0].Content != "RULES AND TOOLS. This is a warm-up." || msgs[2].Content != "hi" {
		t.Errorf("the turn after warm-up = %+v", msgs)
	}
}

func TestOpenAIFailedTurnReportsNoThread(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatFail(500, "boom"))
	rec, err := runTurn(t, newOpenAI(Settings{BaseURL: srv.URL}), testTurn(&fakeBroker{}, "go", ""))
	wantCode(t, err, wire.CodeProviderError, "boom")
	if ids := rec.threadIDs(); len(ids) != 0 {
		t.Errorf("a failed first turn reported thread ids %v; Core would then skip the first prompt", ids)
	}
}

func TestOpenAICheck(t *testing.T) {
	srv := modelserver.NewChat(t)
	info := newOpenAI(Settings{BaseURL: srv.URL, DefaultModel: "m1"}).Check(context.Background())
	if !info.Available || info.Name != "openai" || info.Path != srv.URL || info.DefaultModel != "m1" || info.Reason != "" {
		t.Errorf("up: %+v", info)
	}

	down := "http://" + closedPort(t) + "/v1"
	start := time.Now()
	info = newOpenAI(Settings{BaseURL: down}).Check(context.Background())
	if info.Available || !strings.HasPrefix(info.Reason, "no model server at "+down) {
		t.Errorf("down: %+v", info)
	}
	if time.Since(start) > time.Second {
		t.Errorf("Check took %s", time.Since(start))
	}

	locked := modelserver.NewChat(t)
	locked.RequireKey("k")
	if info := newOpenAI(Settings{BaseURL: locked.URL}).Check(context.Background()); info.Available || !strings.Contains(info.Reason, "refused the credentials") {
		t.Errorf("locked: %+v", info)
	}

	// A remote endpoint is not probed.
	if info := newOpenAI(Settings{BaseURL: "https://models.example.invalid/v1"}).Check(context.Background()); !info.Available {
		t.Errorf("remote: %+v", info)
	}
	if info := newOpenAI(Settings{BaseURL: "ftp://x"}).Check(context.Background()); info.Available || !strings.Contains(info.Reason, "base_url") {
		t.Errorf("bad base_url: %+v", info)
	}
	if info := newOpenAI(Settings{}).Check(context.Background()); info.Path != DefaultOpenAIBaseURL {
		t.Errorf("default base URL: %+v", info)
	}
}

func TestOpenAIArgs(t *testing.T) {
	p := newOpenAI(Settings{Args: []string{"--max-steps=3", "--max-messages", "50"}})
	if p.badSettings != "" || p.maxSteps != 3 || p.MaxMessages != 50 {
		t.Errorf("steps %d messages %d bad %q", p.maxSteps, p.MaxMessages, p.badSettings)
	}
	for _, bad := range [][]string{{"--max-steps=0"}, {"--max-steps=x"}, {"--verbose"}} {
		if p := newOpenAI(Settings{Args: bad}); p.badSettings == "" {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestTrimConversation(t *testing.T) {
	msgs := []chatMessage{{Role: "user", Content: "rules"}}
	for i := 0; i < 5; i++ {
		msgs = append(msgs, chatMessage{Role: "assistant"}, chatMessage{Role: "tool"}, chatMessage{Role: "assistant"}, chatMessage{Role: "user", Content: fmt.Sprint(i)})
	}
	got := trimConversation(msgs, 6, 1<<20)
	if len(got) > 6 || got[0].Content != "rules" || got[1].Role != "user" {
		t.Fatalf("trimmed = %+v", got)
	}
	if got[len(got)-1].Content != "4" {
		t.Errorf("the newest message was dropped: %+v", got)
	}
	if short := trimConversation(msgs[:3], 6, 1<<20); len(short) != 3 {
		t.Errorf("a short conversation was trimmed")
	}
	// By size: a big tool result in an old turn is dropped with its turn.
	big := []chatMessage{
		{Role: "user", Content: "rules"},
		{Role: "assistant"}, {Role: "tool", Content: strings.Repeat("x", 1000)}, {Role: "assistant", Content: "a"},
		{Role: "user", Content: "q2"}, {Role: "assistant", Content: "a2"},
	}
	got = trimConversation(big, 100, 100)
	if len(got) != 3 || got[1].Content != "q2" {
		t.Errorf("trimmed by size = %+v", got)
	}
	// The latest turn is kept whole even when it alone is too big.
	got = trimConversation(big, 100, 10)
	if len(got) != 3 || got[1].Content != "q2" {
		t.Errorf("latest turn not kept: %+v", got)
	}
	if got := trimConversation(big[:4], 100, 10); len(got) != 4 {
		t.Errorf("a single turn was cut: %+v", got)
	}
}

func TestToolNames(t *testing.T) {
	long := "a." + strings.Repeat("x", 80)
	tools := func(names ...string) []schema.Tool {
		var ts []schema.Tool
		for _, n := range names {
			ts = append(ts, schema.Tool{Name: n})
		}
		return ts
	}
	n := newToolNames(tools("update_counter", "editor.replace_selection", "a.b", "a_b", long))
	if got := n.function("update_counter"); got != "update_counter" {
		t.Errorf("valid name changed: %s", got)
	}
	if got := n.function("editor.replace_selection"); got != "editor_replace_selection" {
		t.Errorf("editor.replace_selection → %s", got)
	}
	if got := n.function("a_b"); got != "a_b" {
		t.Errorf("a_b → %s (a valid name keeps itself)", got)
	}
	if got := n.function("a.b"); got == "a_b" || !strings.HasPrefix(got, "a_b_") {
		t.Errorf("a.b → %s (must not take a_b)", got)
	}
	if got := n.function(long); len(got) > 64 || !functionNameRule.MatchString(got) {
		t.Errorf("long name → %s (%d)", got, len(got))
	}
	for _, name := range []string{"update_counter", "editor.replace_selection", "a.b", "a_b", long} {
		if back := n.tool(n.function(name)); back != name {
			t.Errorf("%s → %s → %s", name, n.function(name), back)
		}
	}
	if got := n.tool("made_up"); got != "made_up" {
		t.Errorf("unknown function name → %s", got)
	}
	// The order of the manifest does not change the mapping.
	m := newToolNames(tools(long, "a_b", "a.b", "editor.replace_selection", "update_counter"))
	for tool, fn := range n.toFunction {
		if m.toFunction[tool] != fn {
			t.Errorf("%s maps to %s in one order and %s in another", tool, fn, m.toFunction[tool])
		}
	}
}

func TestToolNamesAreInjective(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const alphabet = "ab._-"
	seen := map[string]bool{}
	var names []string
	for len(names) < 300 {
		b := []byte{"ab"[rng.Intn(2)]}
		for i := rng.Intn(6); i > 0; i-- {
			b = append(b, alphabet[rng.Intn(len(alphabet))])
		}
		if rng.Intn(20) == 0 {
			b = append(b, strings.Repeat(".", 70)...)
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			names = append(names, string(b))
		}
	}
	var ts []schema.Tool
	for _, name := range names {
		ts = append(ts, schema.Tool{Name: name})
	}
	n := newToolNames(ts)
	fns := map[string]string{}
	for _, name := range names {
		fn := n.function(name)
		if !functionNameRule.MatchString(fn) {
			t.Errorf("%q → %q breaks the function-name rule", name, fn)
		}
		if other, dup := fns[fn]; dup {
			t.Errorf("%q and %q both map to %q", name, other, fn)
		}
		fns[fn] = name
		if n.tool(fn) != name {
			t.Errorf("%q does not map back", name)
		}
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestOpenAITurnDeadlineIsProviderTimeout(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatHang())
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := newOpenAI(Settings{BaseURL: srv.URL}).RunTurn(ctx, testTurn(&fakeBroker{}, "go", ""), func(Event) {})
	wantCode(t, err, wire.CodeProviderTimeout)
}

func TestOpenAITellsTheModelItsToolsAreFunctions(t *testing.T) {
	srv := modelserver.NewChat(t, modelserver.ChatSay("ok"), modelserver.ChatSay("ok"))
	p := newOpenAI(Settings{BaseURL: srv.URL})
	if _, err := runTurn(t, p, testTurn(&fakeBroker{}, "go", "")); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Messages[0].Role != "system" || !strings.Contains(r.System(), "no shell") ||
		!strings.Contains(r.System(), "editor.replace_selection is the function editor_replace_selection") {
		t.Errorf("system message = %q", r.System())
	}
	// A session without tools gets no note.
	turn := testTurn(nil, "go", "")
	turn.Tools = nil
	turn.SessionID = "s_other"
	if _, err := runTurn(t, p, turn); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[1]; r.System() != "" || len(r.Tools) != 0 {
		t.Errorf("no tools: system %q tools %d", r.System(), len(r.Tools))
	}
}

// FuzzReadChatStream: whatever a model server sends, the stream reader
// returns (an error or a reply) and never panics; a reply it accepts has
// every call at an index it saw.
func FuzzReadChatStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n")
	f.Add("data: {\"error\":{\"message\":\"boom\"}}\n\n")
	f.Add(": ping\nevent: x\ndata: {\"choices\":[]}\ndata: \n\n")
	f.Add("data: {\"choices\":[{\"index\":0,\"message\":{\"content\":\"x\",\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"n\"}}]}}]}\n\n")
	f.Add("data: {\"choices\":[{\"message\":{\"tool_calls\":[{\"id\":\"a\"}]}},{\"message\":{\"tool_calls\":[{\"id\":\"b\"}]},\"finish_reason\":\"stop\"}]}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		reply := newChatReply()
		if err := readChatStream(strings.NewReader(body), reply, func(string) {}); err != nil {
			return
		}
		if !reply.finished {
			t.Fatal("accepted a stream that never finished")
		}
		if len(reply.toolCalls()) != len(reply.calls) {
			t.Fatalf("%d calls listed, %d accumulated", len(reply.toolCalls()), len(reply.calls))
		}
		_ = reply.message()
	})
}
