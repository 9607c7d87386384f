package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// codexStream reads `codex exec --json` lines into events and remembers how
// the turn ended. Unknown event and item types are ignored: the field set
// changes between Codex versions.
type codexStream struct {
	threadID  string
	messages  int    // agent_message items seen, for the separator
	completed bool   // turn.completed
	failed    string // turn.failed's message
	lastError string // the last `error` event's message
}

type codexLine struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Item     *struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
	} `json:"item"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (s *codexStream) handle(line []byte, emit func(Event)) {
	var ev codexLine
	if !decodeLenient(line, &ev) {
		return // not JSON: Codex prints only JSON on stdout, but be lenient
	}
	switch ev.Type {
	case "thread.started":
		if ev.ThreadID != "" {
			s.threadID = ev.ThreadID
			emit(Event{ProviderThreadID: ev.ThreadID})
		}
	case "item.completed":
		if ev.Item == nil {
			return
		}
		switch ev.Item.Type {
		case "agent_message":
			if ev.Item.Text == "" {
				return
			}
			text := ev.Item.Text
			if s.messages > 0 {
				text = "\n\n" + text
			}
			s.messages++
			emit(Event{ChatDelta: text})
		case "error":
			// An error item is a warning (unknown model metadata, ...), not fatal.
			emit(Event{Warning: "codex: " + errorWords(ev.Item.Message)})
		}
	case "error":
		s.lastError = codexMessage(ev.Message)
		emit(Event{Warning: "codex: " + errorWords(s.lastError)})
	case "turn.failed":
		s.failed = "turn failed"
		if ev.Error != nil && ev.Error.Message != "" {
			s.failed = codexMessage(ev.Error.Message)
		}
	case "turn.completed":
		s.completed = true
	}
}

// outcome judges the finished turn: turn.failed, an error without
// turn.completed, and a non-zero exit are PROVIDER_ERROR with Codex's own
// message (or its stderr when it said nothing on stdout).
func (s *codexStream) outcome(run cliRun, resumeID string) error {
	switch {
	case s.failed != "":
		return wire.Errorf(wire.CodeProviderError, "codex: %s", s.failed).WithDetails(exitDetails(run))
	case s.completed && run.exitCode == 0:
		return nil
	case s.lastError != "":
		return wire.Errorf(wire.CodeProviderError, "codex: %s", s.lastError).WithDetails(exitDetails(run))
	}
	tail := stderrTail(run.stderr, 5)
	if resumeID != "" && strings.Contains(run.stderr, "no rollout found") {
		return wire.Errorf(wire.CodeProviderError, "codex could not resume thread %s: no rollout found for thread id (was it made with another CODEX_HOME?)", resumeID).WithDetails(exitDetails(run))
	}
	msg := "exited without completing the turn"
	if run.exitCode != 0 {
		msg = fmt.Sprintf("exited with status %d", run.exitCode)
	}
	if run.err != nil {
		msg += ": " + run.err.Error()
	}
	if tail != "" {
		msg += ": " + tail
	}
	return wire.Errorf(wire.CodeProviderError, "codex %s", msg).WithDetails(exitDetails(run))
}

// codexMessage tidies an error message: Codex passes some model-server
// error bodies through verbatim, {"error":{"message":...}}.
func codexMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if strings.HasPrefix(msg, "{") && json.Unmarshal([]byte(msg), &body) == nil && body.Error.Message != "" {
		return body.Error.Message
	}
	return msg
}
