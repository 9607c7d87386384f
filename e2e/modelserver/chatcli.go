package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// This file is chat completions as the agent CLIs that speak it use it
// (opencode through @ai-sdk/openai-compatible, Copilot CLI with
// COPILOT_PROVIDER_BASE_URL): POST /v1/chat/completions, stream:true, with
// a shell tool named "bash" {command, description}. A command's output
// comes back as a role "tool" message. Requests that offer no tools
// (opencode's session title) are side requests: answered, not scripted.

// CLIChatModel is the model name the CLI tests configure.
const CLIChatModel = "pedelec-test-model"

// NewChatCLI starts a scripted chat-completions server for an agent CLI.
func NewChatCLI(t testing.TB, steps ...Step) *Server {
	return newServerWithSide(t, "/v1/chat/completions", answerChatCLI, chatCLISide, steps)
}

func chatCLISide(w http.ResponseWriter, r *http.Request, body []byte) bool {
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	if len(req.Tools) > 0 {
		return false
	}
	answerChatCLI(w, r, body, Say("Pedelec test session"))
	return true
}

func answerChatCLI(w http.ResponseWriter, r *http.Request, body []byte, step Step) {
	if step.Status != 0 || step.Fail {
		status := step.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		chatError(w, status, step.Message)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	if req.Model == "" {
		req.Model = CLIChatModel
	}
	id := nextChatID("chatcmpl")
	usage := map[string]any{"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
	var call map[string]any
	if step.Command != "" {
		args, _ := json.Marshal(map[string]string{"command": step.Command, "description": "Run the requested command"})
		call = map[string]any{"id": nextChatID("call"), "type": "function",
			"function": map[string]any{"name": "bash", "arguments": string(args)}}
	}
	if step.Tool != "" {
		args, _ := json.Marshal(step.Input)
		call = map[string]any{"id": nextChatID("call"), "type": "function",
			"function": map[string]any{"name": offeredChatTool(body, step.Tool), "arguments": string(args)}}
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": step.Text}
		finish := "stop"
		if call != nil {
			msg, finish = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(),
			"model": req.Model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	startSSE(w)
	chunk := func(choices []any, extra map[string]any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model, "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		sse(w, "", c)
	}
	delta := func(d map[string]any, finish any) {
		chunk([]any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}, nil)
	}
	delta(map[string]any{"role": "assistant", "content": ""}, nil)
	finish := "stop"
	if call != nil {
		fn := call["function"].(map[string]any)
		args := fn["arguments"].(string)
		delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		for _, part := range chatSplit(args, 3) {
			delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": part}}}}, nil)
		}
		finish = "tool_calls"
	} else {
		for _, part := range splitWords(step.Text) {
			delta(map[string]any{"content": part}, nil)
		}
	}
	delta(map[string]any{}, finish)
	chunk([]any{}, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// ToolMessage returns the content of the last role "tool" message of a
// chat-completions request (what the CLI sent back after a command).
func (r Request) ToolMessage() (string, bool) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return "", false
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return flattenContent(req.Messages[i].Content), true
		}
	}
	return "", false
}

// OpencodeSettings are the [providers.opencode] lines that point opencode at
// baseURL: Pedelec writes the provider entry from base_url and api_key.
func OpencodeSettings(baseURL string) string {
	return strings.Join([]string{
		`base_url = "` + baseURL + `/v1"`,
		`api_key = "test-key"`,
		`default_model = "` + CLIChatModel + `"`,
	}, "\n")
}

// offeredChatTool finds the full name of tool among a chat request's
// tools[].function.name, however the CLI prefixes an MCP server's tools
// (opencode "pedelec_x", copilot "pedelec-x"); else tool.
func offeredChatTool(body []byte, tool string) string {
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	for _, t := range req.Tools {
		if prefixedTool(t.Function.Name, tool) {
			return t.Function.Name
		}
	}
	return tool
}
