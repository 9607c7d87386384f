package modelserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// ClaudeModel is the model name the Messages server reports.
const ClaudeModel = "claude-sonnet-4-5"

// NewMessages starts a scripted Anthropic Messages API server (POST
// /v1/messages, SSE) for Claude Code.
func NewMessages(t testing.TB, steps ...Step) *Server {
	return newServer(t, "/v1/messages", answerMessages, steps)
}

func answerMessages(w http.ResponseWriter, r *http.Request, body []byte, step Step) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	if step.Fail && !req.Stream {
		// Claude Code falls back to a non-streaming request when a stream
		// breaks; a failing model fails that one too.
		step = Step{Status: http.StatusInternalServerError, Message: step.Message}
	}
	if step.Status != 0 {
		errType := "api_error"
		if step.Status == http.StatusBadRequest {
			errType = "invalid_request_error"
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", nextID("req"))
		w.WriteHeader(step.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": step.Message}})
		return
	}
	model := req.Model
	if model == "" {
		model = ClaudeModel
	}
	msgID := nextID("msg")
	stop, block, delta := "end_turn", map[string]any(nil), map[string]any(nil)
	var full map[string]any // the block as a non-streaming answer carries it
	if step.Tool != "" {
		stop = "tool_use"
		inputJSON, _ := json.Marshal(step.Input)
		id := nextID("toolu")
		name, _ := offeredTool(body, step.Tool)
		block = map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(inputJSON)}
		full = map[string]any{"type": "tool_use", "id": id, "name": name, "input": step.Input}
	} else if step.Command != "" {
		stop = "tool_use"
		input := map[string]string{"command": step.Command, "description": "Run the requested command"}
		inputJSON, _ := json.Marshal(input)
		id := nextID("toolu")
		block = map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(inputJSON)}
		full = map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": input}
	} else {
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": step.Text}
		full = map[string]any{"type": "text", "text": step.Text}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []any{full}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	startSSE(w)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if step.Fail {
		sse(w, "error", map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": step.Message}})
		return
	}
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	if step.Command == "" && step.Tool == "" {
		// Text streams word by word, as a model's does.
		for _, chunk := range splitWords(step.Text) {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": chunk}})
		}
	} else {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// ClaudeEnv is the environment that points Claude Code at baseURL (a
// scripted server's URL or DownURL) with a private config dir and no
// retries or background traffic. Settings.Env takes it as is.
func ClaudeEnv(t testing.TB, baseURL string) map[string]string {
	t.Helper()
	return map[string]string{
		// Claude's Bash tool snapshots a login shell, which runs the
		// profile in HOME. A private HOME keeps the tests from depending on
		// (or writing to) the developer's own dotfiles: a pyenv profile,
		// say, rehashes into ~/.pyenv and can leave a lock that stalls every
		// later shell for a minute when a turn is cancelled mid-rehash.
		"HOME":               t.TempDir(),
		"ANTHROPIC_BASE_URL": baseURL,
		"ANTHROPIC_API_KEY":  "test-key",
		"CLAUDE_CONFIG_DIR":  t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"CLAUDE_CODE_MAX_RETRIES":                  "0",
	}
}

// ClaudeEnv is ClaudeEnv for this server.
func (s *Server) ClaudeEnv(t testing.TB) map[string]string { return ClaudeEnv(t, s.URL) }

// ToolResult returns the content of the last tool_result block in the last
// user message of a Messages API request (what Claude sends back after
// running a command), and whether it was marked as an error.
func (r Request) ToolResult() (content string, isError bool, ok bool) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return "", false, false
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			return "", false, false
		}
		for j := len(blocks) - 1; j >= 0; j-- {
			b := blocks[j]
			if b.Type != "tool_result" {
				continue
			}
			return flattenContent(b.Content), b.IsError, true
		}
		return "", false, false
	}
	return "", false, false
}

// flattenContent turns a tool_result content (a string or a list of text
// blocks) into text.
func flattenContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		out := ""
		for _, b := range blocks {
			out += b.Text
		}
		return out
	}
	return string(raw)
}

// splitWords cuts text after each space, keeping every character.
func splitWords(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
