package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file is the chat-completions API that Pedelec's own openai provider
// speaks: POST /v1/chat/completions with stream:true (SSE data-only lines,
// [DONE] at the end) and GET /v1/models.

// ChatModel is the one model a chat server knows unless told otherwise;
// a request for any other gets 404 model_not_found, as Ollama and OpenAI answer.
const ChatModel = "pedelec-test-model"

// ChatStep answers one chat-completions request. Text and Calls may be
// combined (text first); Status, Raw and Hang stand alone.
type ChatStep struct {
	// Text is assistant text, streamed in a few deltas.
	Text string
	// Calls are function calls, each streamed as fragments: the first with
	// id and name, the arguments split over the following ones.
	Calls []ChatFunctionCall
	// Status answers with this HTTP status and {"error":{"message":Message}}.
	Status  int
	Message string
	// StreamError answers 200 and then {"error":{"message":Message}} inside the stream.
	StreamError bool
	// Raw is sent as-is as a 200 text/event-stream body: malformed answers.
	Raw string
	// Hang holds the request open until the client goes away.
	Hang bool
}

// ChatFunctionCall is one call the scripted model makes.
type ChatFunctionCall struct {
	Name string
	Args string // the JSON arguments, as the model writes them
}

// ChatSay is a step that answers with text and ends the turn.
func ChatSay(text string) ChatStep { return ChatStep{Text: text} }

// ChatCall is a step that calls one function.
func ChatCall(name, args string) ChatStep {
	return ChatStep{Calls: []ChatFunctionCall{{Name: name, Args: args}}}
}

// ChatFail is a step that answers with an HTTP error.
func ChatFail(status int, message string) ChatStep {
	return ChatStep{Status: status, Message: message}
}

// ChatRaw is a step that sends body as the stream, unchanged.
func ChatRaw(body string) ChatStep { return ChatStep{Raw: body} }

// ChatHang is a step that never answers.
func ChatHang() ChatStep { return ChatStep{Hang: true} }

// ChatRequest is one recorded chat-completions request.
type ChatRequest struct {
	Model         string
	Messages      []ChatMessage
	Tools         []ChatTool
	Stream        bool
	Authorization string
	Body          json.RawMessage
}

// ChatMessage is a message of a recorded request.
type ChatMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// ChatTool is a function tool offered in a recorded request.
type ChatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ToolResults are the tool messages at the end of the request: the results
// of the calls the previous answer made.
func (r ChatRequest) ToolResults() []ChatMessage {
	var out []ChatMessage
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		out = append([]ChatMessage{r.Messages[i]}, out...)
	}
	return out
}

// System is the content of the system messages, joined by newlines.
func (r ChatRequest) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Conversation is the messages without the system messages.
func (r ChatRequest) Conversation() []ChatMessage {
	var out []ChatMessage
	for _, m := range r.Messages {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// LastUser is the content of the last user message.
func (r ChatRequest) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolNames are the function names offered, in order.
func (r ChatRequest) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// ChatServer is a scripted chat-completions server on 127.0.0.1.
type ChatServer struct {
	// URL is the base URL the openai provider takes: http://127.0.0.1:PORT/v1.
	URL string

	t        testing.TB
	srv      *httptest.Server
	mu       sync.Mutex
	steps    []ChatStep
	requests []ChatRequest
	models   []string
	key      string
	hanging  int
	hangs    chan struct{}
}

// NewChat starts a chat-completions server answering with steps in order;
// when they run out it answers 500 "script exhausted".
func NewChat(t testing.TB, steps ...ChatStep) *ChatServer {
	s := &ChatServer{t: t, steps: append([]ChatStep(nil), steps...), models: []string{ChatModel}, hangs: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleCompletion)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Logf("modelserver (chat): unexpected %s %s", r.Method, r.URL)
		chatError(w, http.StatusNotFound, "not scripted: "+r.Method+" "+r.URL.Path)
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// RequireKey makes the server refuse (401) requests without "Bearer key".
func (s *ChatServer) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetModels replaces the models the server knows.
func (s *ChatServer) SetModels(models ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), models...)
}

// Push appends steps to the script, for a later turn.
func (s *ChatServer) Push(steps ...ChatStep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Requests returns a copy of every completion request received so far.
func (s *ChatServer) Requests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.requests...)
}

// Remaining is how many steps have not been used yet.
func (s *ChatServer) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps)
}

// Hanging is how many ChatHang requests are still open: 0 once every client
// that was kept waiting has gone away.
func (s *ChatServer) Hanging() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hanging
}

// AwaitRequests waits until n completion requests have arrived or timeout passes.
func (s *ChatServer) AwaitRequests(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if len(s.Requests()) >= n {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// Close releases hanging requests and stops the server. Safe to call twice.
func (s *ChatServer) Close() {
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

func (s *ChatServer) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		chatError(w, http.StatusUnauthorized, "Incorrect API key provided")
		return false
	}
	return true
}

func (s *ChatServer) handleModels(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	data := make([]map[string]any, 0, len(s.models))
	for _, m := range s.models {
		data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "pedelec-test"})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// handleTags is Ollama's own model list, GET /api/tags.
func (s *ChatServer) handleTags(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	models := make([]map[string]any, 0, len(s.models))
	for _, m := range s.models {
		models = append(models, map[string]any{"name": m, "model": m, "size": 1, "digest": "sha256:0"})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"models": models})
}

// Root is the server without /v1: Ollama's base URL.
func (s *ChatServer) Root() string { return strings.TrimSuffix(s.URL, "/v1") }

func (s *ChatServer) handleCompletion(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		chatError(w, http.StatusBadRequest, "request body is not JSON: "+err.Error())
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &struct {
		Model    *string        `json:"model"`
		Messages *[]ChatMessage `json:"messages"`
		Tools    *[]ChatTool    `json:"tools"`
		Stream   *bool          `json:"stream"`
	}{&req.Model, &req.Messages, &req.Tools, &req.Stream}); err != nil {
		chatError(w, http.StatusBadRequest, "request is not a chat completion: "+err.Error())
		return
	}
	req.Body = body
	req.Authorization = r.Header.Get("Authorization")

	s.mu.Lock()
	s.requests = append(s.requests, req)
	known := false
	for _, m := range s.models {
		known = known || m == req.Model
	}
	var step ChatStep
	if known && s.authorizedLocked(r) {
		if len(s.steps) > 0 {
			step = s.steps[0]
			s.steps = s.steps[1:]
		} else {
			step = ChatFail(http.StatusInternalServerError, "modelserver: script exhausted")
		}
	}
	s.mu.Unlock()

	if !s.authorized(w, r) {
		return
	}
	if !known {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"message":"model %q not found, try pulling it first","type":"api_error","code":"model_not_found"}}`, req.Model)
		return
	}
	s.answer(w, r, step)
}

func (s *ChatServer) authorizedLocked(r *http.Request) bool {
	return s.key == "" || r.Header.Get("Authorization") == "Bearer "+s.key
}

func (s *ChatServer) answer(w http.ResponseWriter, r *http.Request, step ChatStep) {
	switch {
	case step.Hang:
		s.mu.Lock()
		s.hanging++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.hanging--
			s.mu.Unlock()
		}()
		select {
		case <-r.Context().Done():
		case <-s.hangs:
		}
		return
	case step.Status != 0:
		chatError(w, step.Status, step.Message)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if step.Raw != "" {
		fmt.Fprint(w, step.Raw)
		return
	}
	id := nextChatID("chatcmpl")
	chunk := func(delta map[string]any, finish any) {
		chatSSE(w, map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": ChatModel,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
		})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if step.StreamError {
		chatSSE(w, map[string]any{"error": map[string]any{"message": step.Message, "type": "server_error"}})
		return
	}
	for _, part := range chatSplit(step.Text, 3) {
		chunk(map[string]any{"content": part}, nil)
	}
	for i, call := range step.Calls {
		chunk(map[string]any{"tool_calls": []map[string]any{{
			"index": i, "id": nextChatID("call"), "type": "function",
			"function": map[string]any{"name": call.Name, "arguments": ""},
		}}}, nil)
		for _, part := range chatSplit(call.Args, 3) {
			chunk(map[string]any{"tool_calls": []map[string]any{{
				"index": i, "function": map[string]any{"arguments": part},
			}}}, nil)
		}
	}
	finish := "stop"
	if len(step.Calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// chatSplit cuts s into at most n non-empty pieces on rune boundaries, so a
// client has to join fragments.
func chatSplit(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := []rune(s)
	size := (len(runes) + n - 1) / n
	var out []string
	for len(runes) > 0 {
		k := min(size, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

func chatSSE(w http.ResponseWriter, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func chatError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error"}})
}

var chatIDs struct {
	sync.Mutex
	n int
}

func nextChatID(prefix string) string {
	chatIDs.Lock()
	defer chatIDs.Unlock()
	chatIDs.n++
	return fmt.Sprintf("%s_%d", prefix, chatIDs.n)
}

// ChatContains reports whether any recorded request body holds s.
func ChatContains(reqs []ChatRequest, s string) bool {
	for _, r := range reqs {
		if strings.Contains(string(r.Body), s) {
			return true
		}
	}
	return false
}
