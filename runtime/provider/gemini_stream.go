package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// geminiStream reads `gemini -p --output-format stream-json` lines into
// events and remembers how the turn ended. Gemini's events: init
// {session_id}, message {role, content, delta}, tool_use, tool_result
// {status, error} (no exit code), error {severity, message} and a final
// result {status, error}. A process that exits 0 without a result was
// stopped (a signal makes Gemini exit 0), so no result is a failure.
// Unknown types and fields are ignored: they change between versions.
type geminiStream struct {
	sessionID string
	chatted   bool   // some assistant text was sent
	toolSince bool   // a tool ran since the last assistant text
	result    string // the result's status: success or error
	failed    string // the result's error message
	lastError string // the last error event's message
}

type geminiLine struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Status    string `json:"status"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	ToolName  string `json:"tool_name"`
	Output    string `json:"output"`
	Error     *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func (s *geminiStream) handle(line []byte, emit func(Event)) {
	var ev geminiLine
	if !decodeLenient(line, &ev) {
		return // stdout is JSON lines only; be lenient all the same
	}
	switch ev.Type {
	case "init":
		if ev.SessionID != "" && ev.SessionID != s.sessionID {
			s.sessionID = ev.SessionID
			emit(Event{ProviderThreadID: ev.SessionID})
		}
	case "message":
		if ev.Role != "assistant" || ev.Content == "" {
			return
		}
		text := ev.Content
		if s.chatted && s.toolSince {
			text = "\n\n" + text // a new message after the agent ran something
		}
		s.chatted, s.toolSince = true, false
		emit(Event{ChatDelta: text})
	case "tool_use":
		s.toolSince = true
	case "tool_result":
		if ev.Status == "error" && ev.Error != nil {
			// A refused command (policy_violation) goes back to the model;
			// it is worth a line in the log, not a failed turn.
			emit(Event{Warning: fmt.Sprintf("gemini: tool refused (%s): %s", ev.Error.Type, ev.Error.Message)})
		}
	case "error":
		msg := geminiMessage(ev.Message)
		if ev.Severity == "error" {
			s.lastError = msg
		}
		emit(Event{Warning: "gemini: " + errorWords(msg)})
	case "result":
		s.result = ev.Status
		if ev.Status != "success" {
			s.failed = "the turn failed"
			if ev.Error != nil && ev.Error.Message != "" {
				s.failed = geminiMessage(ev.Error.Message)
			}
		}
	}
}

// outcome judges the finished turn: a successful result and exit 0 is
// success; an error result, an exit without a result, or a non-zero exit
// is PROVIDER_ERROR in Gemini's own words (or its stderr's last lines).
func (s *geminiStream) outcome(run cliRun, resumeID string) error {
	switch {
	case s.failed != "":
		return wire.Errorf(wire.CodeProviderError, "gemini: %s", s.failed).WithDetails(exitDetails(run))
	case s.result == "success" && run.exitCode == 0:
		return nil
	case s.lastError != "":
		return wire.Errorf(wire.CodeProviderError, "gemini: %s", s.lastError).WithDetails(exitDetails(run))
	}
	msg := "exited without finishing the turn (no result event)"
	if run.exitCode != 0 {
		msg = fmt.Sprintf("exited with status %d", run.exitCode)
	}
	if run.exitCode == 41 {
		msg += " (authentication: set GEMINI_API_KEY, or base_url and api_key in the config)"
	}
	if resumeID != "" && s.sessionID == "" {
		msg += fmt.Sprintf(" while resuming session %s (was it made with another GEMINI_CLI_HOME?)", resumeID)
	}
	if run.err != nil {
		msg += ": " + run.err.Error()
	}
	if tail := stderrTail(run.stderr, 5); tail != "" {
		msg += ": " + tail
	}
	return wire.Errorf(wire.CodeProviderError, "gemini %s", msg).WithDetails(exitDetails(run))
}

// geminiMessage tidies an API error: Gemini wraps the server's body as
// `[API Error: {"error":{"code":401,"message":"..."}}]`; the inner message
// and status say it better.
func geminiMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	inner, ok := strings.CutPrefix(msg, "[API Error: ")
	if !ok {
		return msg
	}
	body, rest, _ := strings.Cut(inner, "]")
	if i := strings.LastIndex(inner, "}]"); i >= 0 {
		body, rest = inner[:i+1], inner[i+2:]
	}
	var apiErr struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if strings.HasPrefix(body, "{") && json.Unmarshal([]byte(body), &apiErr) == nil && apiErr.Error.Message != "" {
		body = apiErr.Error.Message
		if apiErr.Error.Code != 0 {
			body = fmt.Sprintf("model API error %d: %s", apiErr.Error.Code, body)
		}
	} else {
		body = "model API error: " + body
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		body += " (" + rest + ")"
	}
	return body
}
