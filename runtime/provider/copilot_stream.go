package provider

import (
	"fmt"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// copilotStream reads `copilot -p … --output-format json` lines into
// events. Copilot streams assistant.message_delta {messageId, deltaContent}
// then the whole assistant.message {messageId, content}; tool runs are
// tool.execution_start / tool.execution_complete {success, error}; a
// failed turn has session.error {errorType, message, statusCode}; the
// last line is result {sessionId, exitCode} (the id for --resume).
type copilotStream struct {
	sessionID string
	streamed  map[string]bool // messageIds whose text came as deltas
	lastMsg   string          // the messageId text last came from
	chatted   bool
	result    bool   // a result line was seen
	exitCode  int    // its exitCode
	failed    string // session.error's message
}

type copilotLine struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	ExitCode  int    `json:"exitCode"`
	Data      *struct {
		MessageID    string `json:"messageId"`
		DeltaContent string `json:"deltaContent"`
		Content      string `json:"content"`
		Success      *bool  `json:"success"`
		ErrorType    string `json:"errorType"`
		Message      string `json:"message"`
		StatusCode   int    `json:"statusCode"`
		InfoType     string `json:"infoType"`
		Arguments    struct {
			Command string `json:"command"`
		} `json:"arguments"`
		Error *struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		} `json:"error"`
	} `json:"data"`
}

func (s *copilotStream) handle(line []byte, emit func(Event)) {
	var ev copilotLine
	if !decodeLenient(line, &ev) {
		return
	}
	d := ev.Data
	switch ev.Type {
	case "assistant.message_delta":
		if d == nil || d.DeltaContent == "" {
			return
		}
		if s.streamed == nil {
			s.streamed = map[string]bool{}
		}
		s.streamed[d.MessageID] = true
		s.text(d.MessageID, d.DeltaContent, emit)
	case "assistant.message":
		// The whole message: sent only when it did not stream.
		if d != nil && d.Content != "" && !s.streamed[d.MessageID] {
			s.text(d.MessageID, d.Content, emit)
		}
	case "tool.execution_complete":
		if d != nil && d.Success != nil && !*d.Success && d.Error != nil {
			emit(Event{Warning: fmt.Sprintf("copilot: tool refused (%s): %s", d.Error.Code, d.Error.Message)})
		}
	case "session.info":
		if d != nil && d.InfoType == "model_retry" {
			emit(Event{Warning: "copilot: " + d.Message})
		}
	case "session.error":
		s.failed = "the turn failed"
		if d != nil && d.Message != "" {
			s.failed = d.Message
			if d.StatusCode != 0 {
				s.failed = fmt.Sprintf("model API error %d: %s", d.StatusCode, d.Message)
			}
		}
	case "result":
		s.result, s.exitCode = true, ev.ExitCode
		if ev.SessionID != "" && ev.SessionID != s.sessionID {
			s.sessionID = ev.SessionID
			emit(Event{ProviderThreadID: ev.SessionID})
		}
	}
}

// text sends a piece of a message, with a blank line before a new message.
func (s *copilotStream) text(messageID, text string, emit func(Event)) {
	if s.chatted && messageID != s.lastMsg {
		text = "\n\n" + text
	}
	s.chatted, s.lastMsg = true, messageID
	emit(Event{ChatDelta: text})
}

// outcome: session.error is PROVIDER_ERROR with its message; a result with
// exit code 0 and a process that exited 0 is success; anything else (no
// result: killed; a non-zero exit) is PROVIDER_ERROR.
func (s *copilotStream) outcome(run cliRun, resumeID string) error {
	switch {
	case s.failed != "":
		return wire.Errorf(wire.CodeProviderError, "copilot: %s", s.failed).WithDetails(exitDetails(run))
	case s.result && s.exitCode == 0 && run.exitCode == 0:
		return nil
	}
	msg := "exited without finishing the turn (no result)"
	switch {
	case run.exitCode != 0:
		msg = fmt.Sprintf("exited with status %d", run.exitCode)
	case s.result:
		msg = fmt.Sprintf("reported exit code %d", s.exitCode)
	}
	if resumeID != "" {
		msg += fmt.Sprintf(" while resuming session %s", resumeID)
	}
	if run.err != nil {
		msg += ": " + run.err.Error()
	}
	if tail := stderrTail(run.stderr, 5); tail != "" {
		msg += ": " + tail
	}
	return wire.Errorf(wire.CodeProviderError, "copilot %s", msg).WithDetails(exitDetails(run))
}
