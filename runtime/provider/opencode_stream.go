package provider

import (
	"fmt"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// opencodeStream reads `opencode run --format json` lines into events.
// Every event carries the sessionID (there is no start event); text parts
// come whole, not as deltas; tool_use is reported only once the command
// ended; step_finish closes each model step (reason "tool-calls" when the
// model asked for a tool, "stop" when it answered); an error event
// {error:{name, data:{message, statusCode}}} ends a failed run. A run
// stopped by a signal ends without either.
type opencodeStream struct {
	sessionID  string
	texts      int    // text parts sent
	steps      int    // step_finish events
	lastReason string // the last step_finish's reason
	failed     string // the error event's message
}

type opencodeLine struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	Part      *struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Tool   string `json:"tool"`
		Reason string `json:"reason"`
		State  *struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Input  struct {
				Command string `json:"command"`
			} `json:"input"`
		} `json:"state"`
	} `json:"part"`
	Error *struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		} `json:"data"`
	} `json:"error"`
}

func (s *opencodeStream) handle(line []byte, emit func(Event)) {
	var ev opencodeLine
	if !decodeLenient(line, &ev) {
		return
	}
	if ev.SessionID != "" && ev.SessionID != s.sessionID {
		s.sessionID = ev.SessionID
		emit(Event{ProviderThreadID: ev.SessionID})
	}
	switch ev.Type {
	case "text":
		if ev.Part == nil || ev.Part.Text == "" {
			return
		}
		text := ev.Part.Text
		if s.texts > 0 {
			text = "\n\n" + text
		}
		s.texts++
		emit(Event{ChatDelta: text})
	case "tool_use":
		if ev.Part != nil && ev.Part.State != nil && ev.Part.State.Status == "error" {
			// The message goes on to list every rule; the log needs the reason.
			reason, _, _ := strings.Cut(ev.Part.State.Error, " Here are some of the relevant rules")
			emit(Event{Warning: fmt.Sprintf("opencode: %s %q refused: %s", ev.Part.Tool, ev.Part.State.Input.Command, reason)})
		}
	case "step_finish":
		s.steps++
		if ev.Part != nil {
			s.lastReason = ev.Part.Reason
		}
	case "error":
		s.failed = "the run failed"
		if ev.Error != nil {
			switch {
			case ev.Error.Data.Message != "" && ev.Error.Data.StatusCode != 0:
				s.failed = fmt.Sprintf("model API error %d: %s", ev.Error.Data.StatusCode, ev.Error.Data.Message)
			case ev.Error.Data.Message != "":
				s.failed = ev.Error.Data.Message
			case ev.Error.Name != "":
				s.failed = ev.Error.Name
			}
		}
	}
}

// outcome: an error event is PROVIDER_ERROR with its message; exit 0 after
// at least one finished step is success; anything else (killed, no step,
// non-zero exit) is PROVIDER_ERROR with the exit status and stderr.
func (s *opencodeStream) outcome(run cliRun, resumeID string) error {
	switch {
	case s.failed != "":
		return wire.Errorf(wire.CodeProviderError, "opencode: %s", s.failed).WithDetails(exitDetails(run))
	case s.steps > 0 && run.exitCode == 0:
		return nil
	}
	msg := "exited without finishing the turn"
	if run.exitCode != 0 {
		msg = fmt.Sprintf("exited with status %d", run.exitCode)
	}
	if resumeID != "" && s.sessionID == "" {
		msg += fmt.Sprintf(" while resuming session %s (was it made with other XDG data directories?)", resumeID)
	}
	if run.err != nil {
		msg += ": " + run.err.Error()
	}
	if tail := stderrTail(run.stderr, 5); tail != "" {
		msg += ": " + tail
	}
	return wire.Errorf(wire.CodeProviderError, "opencode %s", msg).WithDetails(exitDetails(run))
}
