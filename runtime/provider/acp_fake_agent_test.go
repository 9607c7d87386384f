package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// The ACP tests' agent is this test binary itself: started with
// fakeACPAgentEnv=1 it speaks ACP on stdin/stdout (init below) instead of
// running tests. What it does depends on the prompt:
//
//	hello   two message chunks, end_turn
//	perm    asks permission for a shell command and a page tool, says the answers
//	recall  says how many prompts this ACP session has had, and its pid
//	hang    waits for session/cancel, then stopReason cancelled
//	crash   one chunk, then exits 3 mid-turn
//	burst   3,000 small chunks at once (a fast model), then "done"
//
// session/load works for a session id it made (they carry "fake-"), with
// fakeACPNoLoadEnv set it fails. With fakeACPReplayEnv set to n it
// replays n updates of a long history (user and agent chunks, thoughts,
// tool calls and their results) in one burst before it answers, as a
// real agent restored after Core's restart does.
//
// For the early start (acp_early_test.go): each start appends a line to
// the file fakeACPStartsEnv names; the first fakeACPFailStartsEnv starts
// write to stderr and exit 2 at once; initialize waits until the file
// fakeACPInitGateEnv names exists.
const (
	fakeACPAgentEnv      = "PEDELEC_FAKE_ACP_AGENT"
	fakeACPNoLoadEnv     = "PEDELEC_FAKE_ACP_NO_LOAD"
	fakeACPStartsEnv     = "PEDELEC_FAKE_ACP_STARTS"
	fakeACPFailStartsEnv = "PEDELEC_FAKE_ACP_FAIL_STARTS"
	fakeACPInitGateEnv   = "PEDELEC_FAKE_ACP_INIT_GATE"
	fakeACPReplayEnv     = "PEDELEC_FAKE_ACP_REPLAY"
)

func init() {
	if os.Getenv(fakeACPAgentEnv) != "1" {
		return
	}
	if path := os.Getenv(fakeACPStartsEnv); path != "" {
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		fmt.Fprintln(f, os.Getpid())
		f.Close()
		data, _ := os.ReadFile(path)
		fail, _ := strconv.Atoi(os.Getenv(fakeACPFailStartsEnv))
		if strings.Count(string(data), "\n") <= fail {
			fmt.Fprintln(os.Stderr, "fake agent: no model configured")
			os.Exit(2)
		}
	}
	a := &fakeAgent{prompts: map[acp.SessionId]int{}, cancel: map[acp.SessionId]chan struct{}{}, ready: make(chan struct{})}
	a.conn = acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	close(a.ready)
	<-a.conn.Done()
	os.Exit(0)
}

type fakeAgent struct {
	conn    *acp.AgentSideConnection
	ready   chan struct{} // closed once conn is set: the connection reads requests before its constructor returns
	mu      sync.Mutex
	prompts map[acp.SessionId]int
	cancel  map[acp.SessionId]chan struct{}
	mcp     string
}

// client is the connection, once NewAgentSideConnection has returned it.
func (a *fakeAgent) client() *acp.AgentSideConnection {
	<-a.ready
	return a.conn
}

func (a *fakeAgent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *fakeAgent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	if gate := os.Getenv(fakeACPInitGateEnv); gate != "" {
		for {
			if _, err := os.Stat(gate); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: true}, AuthMethods: []acp.AuthMethod{}}, nil
}

func (a *fakeAgent) Cancel(_ context.Context, n acp.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch := a.cancel[n.SessionId]; ch != nil {
		close(ch)
		delete(a.cancel, n.SessionId)
	}
	return nil
}

func (a *fakeAgent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *fakeAgent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

func (a *fakeAgent) describeMCP(servers []acp.McpServer) {
	var names []string
	for _, s := range servers {
		if s.Http != nil {
			names = append(names, "http:"+s.Http.Name+"@"+s.Http.Url)
		}
		if s.Stdio != nil {
			names = append(names, "stdio:"+s.Stdio.Name)
		}
	}
	a.mu.Lock()
	a.mcp = strings.Join(names, ",")
	a.mu.Unlock()
}

func (a *fakeAgent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.describeMCP(p.McpServers)
	return acp.NewSessionResponse{SessionId: acp.SessionId(fmt.Sprintf("fake-%d-%d", os.Getpid(), time.Now().UnixNano()))}, nil
}

func (a *fakeAgent) LoadSession(_ context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if os.Getenv(fakeACPNoLoadEnv) != "" || !strings.HasPrefix(string(p.SessionId), "fake-") {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "Invalid session identifier"})
	}
	a.describeMCP(p.McpServers)
	// The replay: history the client must not show again.
	_ = a.client().SessionUpdate(context.Background(), acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText("REPLAYED")})
	n, _ := strconv.Atoi(os.Getenv(fakeACPReplayEnv))
	for i := 0; i < n; i++ {
		a.replayOne(p.SessionId, i)
	}
	a.mu.Lock()
	a.prompts[p.SessionId] = 100 // a loaded session remembers
	a.mu.Unlock()
	return acp.LoadSessionResponse{}, nil
}

// replayOne sends the i-th update of a long history: a turn is a user
// message, a thought, a tool call with its result (a diff of a few lines)
// and the agent's answer in chunks.
func (a *fakeAgent) replayOne(sid acp.SessionId, i int) {
	id := acp.ToolCallId(fmt.Sprintf("call-%d", i/8))
	var u acp.SessionUpdate
	switch i % 8 {
	case 0:
		u = acp.UpdateUserMessageText(fmt.Sprintf("turn %d: please change the counter on the page and tell me what it shows", i/8))
	case 1:
		u = acp.UpdateAgentThoughtText("The page has a counter tool; I will call it and then read the page back.")
	case 2:
		u = acp.StartToolCall(id, "mcp__pedelec__update_counter", acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending),
			acp.WithStartRawInput(map[string]any{"value": i, "reason": "the user asked"}))
	case 3:
		u = acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusInProgress))
	case 4:
		old := strings.Repeat("const counter = 0;\n", 20)
		u = acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolDiffContent("/work/page.js", strings.ReplaceAll(old, "0", fmt.Sprint(i)), old)}))
	default:
		u = acp.UpdateAgentMessageText(fmt.Sprintf("The counter now shows %d. ", i))
	}
	_ = a.client().SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: u})
}

func (a *fakeAgent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *fakeAgent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}

func (a *fakeAgent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *fakeAgent) say(sid acp.SessionId, text string) {
	_ = a.client().SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: acp.UpdateAgentMessageText(text)})
}

func (a *fakeAgent) ask(ctx context.Context, sid acp.SessionId, id, title string, kind acp.ToolKind) string {
	_ = a.client().SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.StartToolCall(acp.ToolCallId(id), title, acp.WithStartKind(kind))})
	r, err := a.client().RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: sid,
		ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(id), Title: &title, Kind: &kind},
		Options: []acp.PermissionOption{
			{Kind: acp.PermissionOptionKindAllowAlways, OptionId: "yes-always", Name: "Always"},
			{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "yes", Name: "Yes"},
			{Kind: acp.PermissionOptionKindRejectOnce, OptionId: "no", Name: "No"},
		}})
	switch {
	case err != nil:
		return "error"
	case r.Outcome.Selected != nil:
		return string(r.Outcome.Selected.OptionId)
	}
	return "cancelled"
}

func (a *fakeAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sid := p.SessionId
	text := ""
	if len(p.Prompt) > 0 && p.Prompt[0].Text != nil {
		text = p.Prompt[0].Text.Text
	}
	a.mu.Lock()
	a.prompts[sid]++
	n := a.prompts[sid]
	mcp := a.mcp
	a.mu.Unlock()
	switch {
	case strings.HasSuffix(text, "hello"):
		a.say(sid, "Hello, ")
		a.say(sid, "world")
	case strings.HasSuffix(text, "perm"):
		shell := a.ask(ctx, sid, "c1", "rm -rf somewhere", acp.ToolKindExecute)
		page := a.ask(ctx, sid, "c2", "mcp__pedelec__update_counter", acp.ToolKindOther)
		a.say(sid, "shell="+shell+" page="+page)
	case strings.HasSuffix(text, "recall"):
		a.say(sid, fmt.Sprintf("prompts=%d pid=%d mcp=%s", n, os.Getpid(), mcp))
	case strings.HasSuffix(text, "hang"):
		ch := make(chan struct{})
		a.mu.Lock()
		a.cancel[sid] = ch
		a.mu.Unlock()
		a.say(sid, "waiting")
		<-ch
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case strings.HasSuffix(text, "burst"):
		for range 3000 {
			a.say(sid, "tok ")
		}
		a.say(sid, "done")
	case strings.HasSuffix(text, "crash"):
		a.say(sid, "about to crash")
		time.Sleep(50 * time.Millisecond)
		os.Exit(3)
	default:
		a.say(sid, "?")
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}
