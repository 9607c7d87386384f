package modelserver

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CodexModel is a model name Codex knows, so it adds no metadata warning.
const CodexModel = "gpt-5.5"

// codexKeyVar is the environment variable Codex reads the mock's key from.
const codexKeyVar = "PEDELEC_MOCK_MODEL_KEY"

// NewResponses starts a scripted OpenAI Responses API server (POST
// /v1/responses, SSE) for the Codex CLI.
func NewResponses(t testing.TB, steps ...Step) *Server {
	return newServer(t, "/v1/responses", answerResponses, steps)
}

func answerResponses(w http.ResponseWriter, r *http.Request, body []byte, step Step) {
	respID := nextID("resp")
	if step.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(step.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": step.Message, "type": "server_error", "code": nil}})
		return
	}
	startSSE(w)
	sse(w, "", map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	if step.Fail {
		sse(w, "", map[string]any{"type": "response.failed", "response": map[string]any{
			"id": respID, "status": "failed", "error": map[string]any{"code": "server_error", "message": step.Message}}})
		return
	}
	var item map[string]any
	if step.Tool != "" {
		args, _ := json.Marshal(step.Input)
		name, namespace := offeredTool(body, step.Tool)
		item = map[string]any{"type": "function_call", "id": nextID("fc"), "call_id": nextID("call"),
			"name": name, "arguments": string(args), "status": "completed"}
		if namespace != "" {
			item["namespace"] = namespace
		}
	} else if step.Command != "" {
		args, _ := json.Marshal(map[string]string{"cmd": step.Command})
		item = map[string]any{"type": "function_call", "id": nextID("fc"), "call_id": nextID("call"),
			"name": "exec_command", "arguments": string(args), "status": "completed"}
	} else {
		item = map[string]any{"type": "message", "id": nextID("msg"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}}}
	}
	sse(w, "", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID, "status": "completed",
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}})
}

// CodexHome writes a CODEX_HOME for Codex pointed at baseURL (a scripted
// server's URL or DownURL) and returns the environment the provider needs:
// CODEX_HOME and the key variable. Settings.Env takes it as is.
func CodexHome(t testing.TB, baseURL string) map[string]string {
	t.Helper()
	home := t.TempDir()
	config := strings.Join([]string{
		`model = "` + CodexModel + `"`,
		`model_provider = "mock"`,
		`[model_providers.mock]`,
		`name = "mock"`,
		`base_url = "` + baseURL + `/v1"`,
		`wire_api = "responses"`,
		`env_key = "` + codexKeyVar + `"`,
		`request_max_retries = 0`,
		`stream_max_retries = 0`,
		``,
	}, "\n")
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"CODEX_HOME": home, codexKeyVar: "test-key"}
}

// CodexEnv is CodexHome for this server.
func (s *Server) CodexEnv(t testing.TB) map[string]string { return CodexHome(t, s.URL) }

// FunctionOutput returns the output of the first function_call_output item
// in a Responses API request (what Codex sends back after running a command).
func (r Request) FunctionOutput() (string, bool) {
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return "", false
	}
	for i := len(req.Input) - 1; i >= 0; i-- {
		in := req.Input[i]
		if in.Type != "function_call_output" {
			continue
		}
		var s string
		if json.Unmarshal(in.Output, &s) == nil {
			return s, true
		}
		return string(in.Output), true
	}
	return "", false
}
