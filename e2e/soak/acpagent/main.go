// Command acpagent is the fault soak's scripted ACP agent: a fast stand-in
// for Gemini CLI, opencode or Copilot CLI on the path they take by default
// (ACP on stdio, kept warm for the session, the page's tools reached through
// the session's MCP endpoint). It speaks ACP with acp-go-sdk's agent side
// and runs each line of a prompt it recognises:
//
//	call TOOL {json}     calls TOOL with the arguments and says the answer
//	cancel TOOL {json}   calls TOOL and gives up after -give-up: the agent
//	                     stopping mid-call (the answer it says is
//	                     TOOL_CALL_CANCELLED)
//
// Calls alternate between the session's MCP server (HTTP, the form Core
// gives every agent at session/new) and `pedelec tool-call` (the link on
// the agent's PATH), so both of an agent's ways to Core stay under the
// faults. Each call's answer is one chat line, the JSON `pedelec tool-call`
// prints: {"ok":true,"result":...} or {"ok":false,"error":{...}}, streamed
// as agent_message_chunk updates. session/cancel stops the call under way
// and ends the prompt with stopReason cancelled. session/load takes any
// session this agent's kind made: it keeps nothing worth loading.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

var (
	giveUp  = flag.Duration("give-up", 300*time.Millisecond, "how long a cancel line waits before the agent stops waiting")
	version = flag.Bool("version", false, "print the version (Core's availability check runs --version)")
)

func main() {
	flag.Parse()
	if *version {
		fmt.Println("pedelec-soak-acp-agent 1")
		return
	}
	a := &agent{sessions: map[acp.SessionId]*session{}}
	a.conn = acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
}

type agent struct {
	conn     *acp.AgentSideConnection
	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	made     atomic.Int64
}

// session is one ACP session: its MCP server and the prompt under way.
type session struct {
	id     acp.SessionId
	server *acp.McpServerHttpInline
	mu     sync.Mutex
	mcp    *mcp.ClientSession
	cancel context.CancelFunc // the running prompt's
	calls  int
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: true}, AuthMethods: []acp.AuthMethod{}}, nil
}

func (a *agent) open(id acp.SessionId, servers []acp.McpServer) {
	s := &session{id: id}
	for _, m := range servers {
		if m.Http != nil {
			s.server = m.Http
		}
	}
	a.mu.Lock()
	old := a.sessions[id]
	a.sessions[id] = s
	a.mu.Unlock()
	if old != nil {
		old.closeMCP()
	}
}

func (a *agent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	id := acp.SessionId(fmt.Sprintf("soak-%d-%d", os.Getpid(), a.made.Add(1)))
	a.open(id, p.McpServers)
	return acp.NewSessionResponse{SessionId: id}, nil
}

func (a *agent) LoadSession(_ context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if !strings.HasPrefix(string(p.SessionId), "soak-") {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "not a session of this agent"})
	}
	a.open(p.SessionId, p.McpServers)
	return acp.LoadSessionResponse{}, nil
}

func (a *agent) Cancel(_ context.Context, n acp.CancelNotification) error {
	if s := a.session(n.SessionId); s != nil {
		s.mu.Lock()
		if s.cancel != nil {
			s.cancel()
		}
		s.mu.Unlock()
	}
	return nil
}

func (a *agent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	if s := a.session(p.SessionId); s != nil {
		s.closeMCP()
	}
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) session(id acp.SessionId) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

var line = regexp.MustCompile(`^(call|cancel) ([A-Za-z0-9_.-]+) (\{.*\})$`)

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s := a.session(p.SessionId)
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
			text.WriteString("\n")
		}
	}
	for _, l := range strings.Split(text.String(), "\n") {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		out := s.call(ctx, m[2], m[3], m[1] == "cancel")
		if ctx.Err() != nil {
			// Cancelled mid-call: the turn is over, its answer unsaid.
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		a.say(p.SessionId, out+"\n")
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// say streams text as two chunks, as agents stream theirs.
func (a *agent) say(id acp.SessionId, text string) {
	half := len(text) / 2
	for _, part := range []string{text[:half], text[half:]} {
		_ = a.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: id, Update: acp.UpdateAgentMessageText(part)})
	}
}

// call runs one tool call and returns its answer as tool-call prints it.
func (s *session) call(ctx context.Context, tool, args string, giveUpEarly bool) string {
	s.mu.Lock()
	s.calls++
	viaMCP := s.calls%2 == 1 && s.server != nil
	s.mu.Unlock()
	callCtx, stop := context.WithCancel(ctx)
	defer stop()
	if giveUpEarly {
		callCtx, stop = context.WithTimeout(ctx, *giveUp)
		defer stop()
	}
	var out string
	if viaMCP {
		out = s.callMCP(callCtx, tool, args)
	} else {
		out = callCLI(callCtx, tool, args)
	}
	if giveUpEarly && callCtx.Err() != nil && ctx.Err() == nil {
		return agentError(wire.CodeToolCallCancelled, "the agent stopped waiting")
	}
	return out
}

func (s *session) callMCP(ctx context.Context, tool, args string) string {
	cs, err := s.client(ctx)
	if err != nil {
		return agentError(wire.CodeCoreUnreachable, "MCP connect: "+err.Error())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		// The connection is suspect (Core restarted): the next call
		// connects again. The call is not repeated: it may have run.
		s.closeMCP()
		return agentError(wire.CodeCoreUnreachable, "MCP call: "+err.Error())
	}
	text := ""
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			text = t.Text
		}
	}
	if res.IsError {
		return text // already {"ok":false,"error":{...}}
	}
	return `{"ok":true,"result":` + text + `}`
}

// client is the session's MCP connection, made at its first call.
func (s *session) client(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mcp != nil {
		return s.mcp, nil
	}
	headers := map[string]string{}
	for _, h := range s.server.Headers {
		headers[h.Name] = h.Value
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pedelec-soak-acp-agent", Version: "1"}, nil)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := client.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: s.server.Url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: withHeaders{headers, http.DefaultTransport}}}, nil)
	if err != nil {
		return nil, err
	}
	s.mcp = cs
	return cs, nil
}

func (s *session) closeMCP() {
	s.mu.Lock()
	cs := s.mcp
	s.mcp = nil
	s.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
}

// callCLI runs `pedelec tool-call` as an agent's shell would: the link
// Core put first on the agent's PATH, the session's environment.
func callCLI(ctx context.Context, tool, args string) string {
	cmd := exec.CommandContext(ctx, "pedelec", "tool-call", tool, args)
	// Interrupted as a shell interrupts it: SIGTERM, which tool-call
	// reports to Core (the agent gave up), unlike a SIGKILL.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if out := strings.TrimSpace(stdout.String()); strings.HasPrefix(out, "{") {
		return out
	}
	return agentError(wire.CodeCoreUnreachable, fmt.Sprintf("tool-call: %v: %s", err, strings.TrimSpace(stderr.String())))
}

func agentError(code wire.Code, message string) string {
	b, _ := json.Marshal(wire.AgentResult{OK: false, Error: &wire.Error{Code: code, Message: message}})
	return string(b)
}

type withHeaders struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}
