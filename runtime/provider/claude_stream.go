package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// claudeStream reads `claude -p --output-format stream-json --verbose
// --include-partial-messages` lines into events and remembers the result.
// Text is sent as it streams (stream_event text deltas); a complete
// assistant text block that did not stream is sent whole. Unknown types are
// ignored.
type claudeStream struct {
	sessionID string
	texts     int               // text blocks sent, for the separator
	block     string            // the text block being streamed: "<message id>/<index>"
	streamed  map[string]string // text streamed so far, by API message id
	denied    map[string]bool
	result    *claudeResult
}

type claudeLine struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	SessionID string          `json:"session_id"`
	Message   json.RawMessage `json:"message"`
	// assistant, stream_event
	IsAPIErrorMessage bool            `json:"is_api_error_message"`
	ParentToolUseID   json.RawMessage `json:"parent_tool_use_id"`
	APIMessageID      string          `json:"api_message_id"`
	Event             *struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"delta"`
	} `json:"event"`
	// system/api_retry
	Attempt     int    `json:"attempt"`
	MaxRetries  int    `json:"max_retries"`
	ErrorStatus int    `json:"error_status"`
	Error       string `json:"error"`
	// system/permission_denied
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
}

type claudeResult struct {
	Subtype           string   `json:"subtype"`
	IsError           bool     `json:"is_error"`
	Result            string   `json:"result"`
	SessionID         string   `json:"session_id"`
	TerminalReason    string   `json:"terminal_reason"`
	Errors            []string `json:"errors"`
	PermissionDenials []struct {
		ToolName  string          `json:"tool_name"`
		ToolUseID string          `json:"tool_use_id"`
		ToolInput json.RawMessage `json:"tool_input"`
	} `json:"permission_denials"`
}

type claudeMessage struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func (s *claudeStream) handle(line []byte, emit func(Event)) {
	var ev claudeLine
	if !decodeLenient(line, &ev) {
		return
	}
	switch ev.Type {
	case "system":
		s.system(ev, emit)
	case "stream_event":
		if isSubagent(ev.ParentToolUseID) || ev.Event == nil {
			return
		}
		if ev.Event.Type != "content_block_delta" || ev.Event.Delta.Type != "text_delta" || ev.Event.Delta.Text == "" {
			return
		}
		text := ev.Event.Delta.Text
		if key := fmt.Sprintf("%s/%d", ev.APIMessageID, ev.Event.Index); key != s.block {
			s.block = key
			if s.texts > 0 {
				text = "\n\n" + text
			}
			s.texts++
		}
		if s.streamed == nil {
			s.streamed = map[string]string{}
		}
		s.streamed[ev.APIMessageID] += ev.Event.Delta.Text
		emit(Event{ChatDelta: text})
	case "assistant":
		// An API error arrives as a synthetic assistant message; it is the
		// turn's error (from result), not the agent's words.
		if ev.IsAPIErrorMessage || isSubagent(ev.ParentToolUseID) {
			return
		}
		var msg claudeMessage
		if !decodeLenient(ev.Message, &msg) || msg.Model == "<synthetic>" {
			return
		}
		for _, block := range msg.Content {
			if block.Type != "text" || block.Text == "" {
				continue
			}
			if msg.ID != "" && strings.Contains(s.streamed[msg.ID], block.Text) {
				continue // already sent as it streamed
			}
			text := block.Text
			if s.texts > 0 {
				text = "\n\n" + text
			}
			s.texts++
			s.block = ""
			emit(Event{ChatDelta: text})
		}
	case "result":
		var r claudeResult
		if !decodeLenient(line, &r) {
			return
		}
		s.result = &r
		if s.sessionID == "" && r.SessionID != "" && !r.IsError {
			s.sessionID = r.SessionID
			emit(Event{ProviderThreadID: r.SessionID})
		}
		for _, d := range r.PermissionDenials {
			if !s.denied[d.ToolUseID] {
				var in struct {
					Command string `json:"command"`
				}
				_ = json.Unmarshal(d.ToolInput, &in)
				emit(Event{Warning: fmt.Sprintf("claude: permission denied for %s: %s", d.ToolName, in.Command)})
			}
		}
	}
}

func (s *claudeStream) system(ev claudeLine, emit func(Event)) {
	switch ev.Subtype {
	case "init":
		// The id to resume with. init is not always the first line.
		if ev.SessionID != "" && ev.SessionID != s.sessionID {
			s.sessionID = ev.SessionID
			emit(Event{ProviderThreadID: ev.SessionID})
		}
	case "api_retry":
		emit(Event{Warning: fmt.Sprintf("claude: model request failed (%d %s), retry %d of %d", ev.ErrorStatus, ev.Error, ev.Attempt, ev.MaxRetries)})
	case "permission_denied":
		if s.denied == nil {
			s.denied = map[string]bool{}
		}
		s.denied[ev.ToolUseID] = true
		var msg string
		_ = json.Unmarshal(ev.Message, &msg)
		emit(Event{Warning: fmt.Sprintf("claude: permission denied for %s: %s", ev.ToolName, msg)})
	}
}

// outcome judges the finished turn by result.is_error and the exit code,
// not by subtype: an API error still says "success".
func (s *claudeStream) outcome(run cliRun, resumeID string) error {
	r := s.result
	if r != nil && !r.IsError && run.exitCode == 0 {
		return nil
	}
	if r == nil {
		msg := "exited without a result"
		if run.exitCode != 0 {
			msg = fmt.Sprintf("exited with status %d without a result", run.exitCode)
		}
		if run.err != nil {
			msg += ": " + run.err.Error()
		}
		if tail := stderrTail(run.stderr, 5); tail != "" {
			msg += ": " + tail
		}
		return wire.Errorf(wire.CodeProviderError, "claude %s", msg).WithDetails(exitDetails(run))
	}
	details := exitDetails(run)
	details["subtype"] = r.Subtype
	if r.TerminalReason != "" {
		details["terminalReason"] = r.TerminalReason
	}
	msg := strings.TrimSpace(r.Result)
	if msg == "" {
		msg = strings.Join(r.Errors, "; ")
	}
	if resumeID != "" && r.Subtype == "error_during_execution" && strings.Contains(msg, "No conversation found") {
		return wire.Errorf(wire.CodeProviderError, "claude could not resume session %s: %s", resumeID, msg).WithDetails(details)
	}
	if msg == "" {
		msg = r.Subtype
		switch {
		case msg != "":
		case run.exitCode != 0:
			msg = fmt.Sprintf("exited with status %d", run.exitCode)
		default:
			msg = "the turn failed without saying why"
		}
		if tail := stderrTail(run.stderr, 5); tail != "" {
			msg += ": " + tail
		}
	}
	return wire.Errorf(wire.CodeProviderError, "claude: %s", msg).WithDetails(details)
}

// isSubagent reports whether a line belongs to a subagent (it is inside a
// tool use): a subagent's messages are not the answer.
func isSubagent(parentToolUseID json.RawMessage) bool {
	p := string(parentToolUseID)
	return p != "" && p != "null"
}
