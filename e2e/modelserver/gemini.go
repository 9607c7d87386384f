package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// This file is the Gemini API that Gemini CLI speaks (GOOGLE_GEMINI_BASE_URL):
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse for the agent's
// turns, :generateContent for side calls (a session title) and
// :countTokens. The shell tool Gemini offers is run_shell_command
// {command, description, ...}; the CLI sends a command's result back as a
// functionResponse part in the next request.

// GeminiModel is the model the tests name with -m (no name means "auto",
// which first asks a router model to pick one).
const GeminiModel = "pedelec-test-model"

// NewGemini starts a scripted Gemini API server.
func NewGemini(t testing.TB, steps ...Step) *Server {
	return newServerWithSide(t, "/v1beta/models/", answerGemini, geminiSide, steps)
}

// geminiSide answers what is not one of the agent's turns: token counts,
// and requests that offer no tools (titles, summaries, routing).
func geminiSide(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens": 42}`)
		return true
	}
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	if len(req.Tools) > 0 {
		return false
	}
	answerGemini(w, r, body, Say("Pedelec test session"))
	return true
}

func answerGemini(w http.ResponseWriter, r *http.Request, body []byte, step Step) {
	if step.Status != 0 || step.Fail {
		status := step.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": status, "message": step.Message, "status": geminiStatus(status)}})
		return
	}
	var parts []map[string]any
	if step.Command != "" {
		parts = []map[string]any{{"functionCall": map[string]any{
			"name": "run_shell_command",
			"args": map[string]string{"command": step.Command, "description": "Run the requested command"},
		}}}
	} else if step.Tool != "" {
		parts = []map[string]any{{"functionCall": map[string]any{"name": offeredGeminiTool(body, step.Tool), "args": step.Input}}}
	} else {
		for _, chunk := range splitWords(step.Text) {
			parts = append(parts, map[string]any{"text": chunk})
		}
	}
	usage := map[string]any{"promptTokenCount": 11, "candidatesTokenCount": 7, "totalTokenCount": 18}
	chunk := func(part map[string]any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": 0}
		resp := map[string]any{"candidates": []any{cand}, "modelVersion": GeminiModel, "responseId": nextID("resp")}
		if last {
			cand["finishReason"] = "STOP"
			resp["usageMetadata"] = usage
		}
		return resp
	}
	if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
		all := make([]any, len(parts))
		for i, p := range parts {
			all[i] = p
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": all}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": usage, "modelVersion": GeminiModel})
		return
	}
	// One chunk per part, as the API streams: text arrives word by word.
	startSSE(w)
	for i, p := range parts {
		sse(w, "", chunk(p, i == len(parts)-1))
	}
}

func geminiStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	}
	return "INTERNAL"
}

// FunctionResponse returns the result of the last functionResponse part of
// a Gemini request (what Gemini CLI sends back after running a command):
// its output, or its error for a refused command.
func (r Request) FunctionResponse() (string, bool) {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionResponse *struct {
					Name     string `json:"name"`
					Response struct {
						Output string `json:"output"`
						Error  string `json:"error"`
					} `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return "", false
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		parts := req.Contents[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			if fr := parts[j].FunctionResponse; fr != nil {
				if fr.Response.Error != "" {
					return fr.Response.Error, true
				}
				return fr.Response.Output, true
			}
		}
	}
	return "", false
}

// GeminiEnv is the environment that points Gemini CLI at baseURL (a
// scripted server's URL or DownURL) with an API key, and a private HOME
// so that nothing depends on (or writes to) the developer's own dotfiles.
func GeminiEnv(t testing.TB, baseURL string) map[string]string {
	t.Helper()
	return map[string]string{
		"GOOGLE_GEMINI_BASE_URL": baseURL,
		"GEMINI_API_KEY":         "test-key",
		"HOME":                   t.TempDir(),
	}
}

// offeredGeminiTool finds the full name of tool among a Gemini request's
// tools[].functionDeclarations[].name (an MCP tool is "mcp_<server>_<tool>").
func offeredGeminiTool(body []byte, tool string) string {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			if prefixedTool(f.Name, tool) {
				return f.Name
			}
		}
	}
	return tool
}
