// Package modelserver runs scripted model servers on loopback so that tests
// can drive the real provider CLIs without a real model: the Responses API
// that Codex speaks (responses.go) and the Messages API that Claude Code
// speaks (messages.go). A script is a list of steps; each step answers one
// model request. Every request body is recorded so a test can assert what
// the CLI sent back (a command's output, a tool result).
package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Step is the answer to one model request. Exactly one of Command, Text or
// Status/Fail is meant to be set.
type Step struct {
	// Command asks the CLI to run this shell command (Codex's exec_command,
	// Claude's Bash tool).
	Command string
	// Tool asks the CLI to call one of the tools it offered the model (an
	// MCP server's, say) with Input: the offered tool whose name is Tool or
	// ends in "__"+Tool, so a test need not know how a CLI prefixes MCP
	// tool names ("mcp__pedelec__add_todo").
	Tool  string
	Input any
	// Text is a final assistant message that ends the turn.
	Text string
	// Status answers with this HTTP status and Message as the error body.
	Status int
	// Fail answers 200 and then fails inside the stream with Message
	// (Codex: response.failed; Claude: an error event).
	Fail    bool
	Message string
	// Hang holds the request open until the client goes away: a model that
	// never answers, for cancel tests.
	Hang bool
	// Repeat keeps the step in the script: it answers this request and
	// every later one (a model server that keeps failing, since a CLI may
	// retry or fall back to another request form).
	Repeat bool
	// Decide, when set, picks the answer from the request itself: a model
	// whose next move depends on what a command printed (a handle to wait
	// with, issue 26). The step it returns is answered as any other.
	Decide func(Request) Step
}

// Say is a step that answers with a final text.
func Say(text string) Step { return Step{Text: text} }

// Run is a step that asks the CLI to run a shell command.
func Run(command string) Step { return Step{Command: command} }

// Use is a step that asks the CLI to call a tool it offered the model.
func Use(tool string, input any) Step { return Step{Tool: tool, Input: input} }

// offeredTool finds the full name of tool among the tools a request offers
// the model (Messages: tools[].name; Responses: tools[].name, or a tool in
// a namespace: tools[].tools[].name, which Codex uses for an MCP server's
// tools, "mcp__pedelec"), else tool.
func offeredTool(body []byte, tool string) (name, namespace string) {
	type offered struct {
		Type  string    `json:"type"`
		Name  string    `json:"name"`
		Tools []offered `json:"tools"`
	}
	var req struct {
		Tools []offered `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	for _, t := range req.Tools {
		if t.Type == "namespace" {
			for _, inner := range t.Tools {
				if inner.Name == tool || strings.HasSuffix(inner.Name, "__"+tool) {
					return inner.Name, t.Name
				}
			}
			continue
		}
		if t.Name == tool || strings.HasSuffix(t.Name, "__"+tool) {
			return t.Name, ""
		}
	}
	return tool, ""
}

// FailWith is a step that answers with an HTTP error status.
func FailWith(status int, message string) Step { return Step{Status: status, Message: message} }

// Request is one recorded model request.
type Request struct {
	Path string
	Body json.RawMessage
	// At is when the request arrived: what a benchmark compares with
	// the moment the turn was sent.
	At time.Time
}

// Server is a scripted model server.
type Server struct {
	URL string // http://127.0.0.1:PORT (no /v1)

	t      testing.TB
	srv    *httptest.Server
	answer func(w http.ResponseWriter, r *http.Request, body []byte, step Step)
	// side answers a CLI's side request (a session title, a summary: one
	// that offers no tools) without using a step or recording it, and
	// reports whether it did. Nil: every request is a step.
	side     func(w http.ResponseWriter, r *http.Request, body []byte) bool
	mu       sync.Mutex
	steps    []Step
	requests []Request
	sides    []Request // the side requests side answered
	hangs    chan struct{}
}

func newServer(t testing.TB, path string, answer func(http.ResponseWriter, *http.Request, []byte, Step), steps []Step) *Server {
	return newServerWithSide(t, path, answer, nil, steps)
}

// newServerWithSide is newServer for a CLI that also makes side requests.
func newServerWithSide(t testing.TB, path string, answer func(http.ResponseWriter, *http.Request, []byte, Step),
	side func(http.ResponseWriter, *http.Request, []byte) bool, steps []Step) *Server {
	s := &Server{t: t, answer: answer, side: side, steps: append([]Step(nil), steps...), hangs: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+path, s.handle)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Logf("modelserver: unexpected %s %s", r.Method, r.URL)
		http.Error(w, `{"error":{"message":"not scripted"}}`, http.StatusNotFound)
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Close releases hanging requests and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.hangs:
	default:
		close(s.hangs)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push appends steps to the script, for a later turn.
func (s *Server) Push(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// SideRequests are the side requests answered so far (session titles,
// summaries): work an agent does before or beside the real request.
func (s *Server) SideRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.sides...)
}

// Remaining is how many steps have not been used yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps)
}

// AwaitRequests waits until n requests have arrived or timeout passes.
func (s *Server) AwaitRequests(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if len(s.Requests()) >= n {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	if s.side != nil && s.side(w, r, body) {
		s.mu.Lock()
		s.sides = append(s.sides, Request{Path: r.URL.Path, Body: body, At: at})
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body, At: at})
	var step Step
	if len(s.steps) > 0 {
		step = s.steps[0]
		if !step.Repeat {
			s.steps = s.steps[1:]
		}
	} else {
		step = Step{Status: http.StatusInternalServerError, Message: "modelserver: script exhausted"}
	}
	s.mu.Unlock()
	if step.Decide != nil {
		step = step.Decide(Request{Path: r.URL.Path, Body: body})
	}
	if step.Hang {
		select {
		case <-r.Context().Done():
		case <-s.hangs:
		}
		return
	}
	s.answer(w, r, body, step)
}

// sse writes one server-sent event; name may be empty for data-only events.
func sse(w http.ResponseWriter, name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

var idMu sync.Mutex
var idN int

func nextID(prefix string) string {
	idMu.Lock()
	defer idMu.Unlock()
	idN++
	return fmt.Sprintf("%s_%d_%d", prefix, time.Now().UnixNano()%1e6, idN)
}

// DownURL is the URL of a loopback port that nothing listens on: a model
// server that is down. The port stays bound (not listening) for the test,
// so connections to it are refused and no other server can take it: a
// port picked and let go was taken by another test's server while a CLI
// retried it, and the CLI got that server's 405 instead of a refusal.
func DownURL(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}

// Contains reports whether any request body after the first from holds s.
func Contains(reqs []Request, s string) bool {
	for _, r := range reqs {
		if strings.Contains(string(r.Body), s) {
			return true
		}
	}
	return false
}

// prefixedTool reports whether name is tool, or tool with an MCP server's
// prefix as some CLI writes it: "mcp__pedelec__x" (Claude, Qwen),
// "mcp_pedelec_x" (Gemini), "pedelec_x" (opencode), "pedelec-x" (Copilot).
func prefixedTool(name, tool string) bool {
	return name == tool || strings.HasSuffix(name, "__"+tool) || strings.HasSuffix(name, "_"+tool) || strings.HasSuffix(name, "-"+tool)
}
