package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Fuzz targets for each agent CLI's stdout parser: whatever a CLI (or
// whatever sits where a CLI should be) prints, the parser never panics or
// hangs, and keeps the cliStream contract. Seeded with the recordings in
// testdata (the real CLIs' output).

func FuzzClaudeStream(f *testing.F) {
	fuzzCLIStream(f, "claude", "claude-2.1.332", func() cliStream { return &claudeStream{} })
}

func FuzzCodexStream(f *testing.F) {
	fuzzCLIStream(f, "codex", "codex-0.171.0", func() cliStream { return &codexStream{} })
}

func FuzzGeminiStream(f *testing.F) {
	fuzzCLIStream(f, "gemini", "gemini-0.61.0", func() cliStream { return &geminiStream{} })
}

func FuzzCopilotStream(f *testing.F) {
	fuzzCLIStream(f, "copilot", "copilot-1.0.102", func() cliStream { return &copilotStream{} })
}

func FuzzOpencodeStream(f *testing.F) {
	fuzzCLIStream(f, "opencode", "opencode-1.18.33", func() cliStream { return &opencodeStream{} })
}

// streamDeadline is how long one input may take; a parser is linear in its
// input, so this is a hang, not a slow machine.
const streamDeadline = 10 * time.Second

// fuzzCLIStream feeds stdout, split into lines as Process.Lines splits
// them, to a fresh parser and checks:
//   - every event carries exactly one of chat text, a thread id, a warning;
//     a warning starts with the CLI's name;
//   - a line that is not JSON emits nothing;
//   - the same stdout gives the same events again;
//   - the outcome is nil or a PROVIDER_ERROR whose message starts with the
//     CLI's name, and never nil when the CLI exited non-zero.
func fuzzCLIStream(f *testing.F, name, recordings string, newStream func() cliStream) {
	files, _ := filepath.Glob(filepath.Join("testdata", recordings, "*.jsonl"))
	for _, file := range files {
		// Large recordings slow every mutation; their lines are in the
		// small ones too.
		if b, err := os.ReadFile(file); err == nil && len(b) <= 16<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("not json\n\n{}\r\n{\"type\":null}\n[1]\n\"x\"\n{\"type\":\"result\",\"is_error\":true}"))
	f.Add([]byte(`{"type":"error"}` + "\n" + `{"type":"item.completed","item":{"type":"error"}}`))
	f.Fuzz(func(t *testing.T, stdout []byte) {
		type replayed struct {
			events []Event
			err    error
		}
		done := make(chan replayed, 1)
		go func() {
			events, err := streamEvents(name, stdout, newStream())
			done <- replayed{events, err}
		}()
		var first replayed
		select {
		case first = <-done:
		case <-time.After(streamDeadline):
			t.Fatalf("%s: the parser did not finish %d bytes in %v", name, len(stdout), streamDeadline)
		}
		if first.err != nil {
			t.Fatalf("%s: %v", name, first.err)
		}
		if again, _ := streamEvents(name, stdout, newStream()); !slices.Equal(first.events, again) {
			t.Fatalf("%s: the same stdout gave other events:\n%+v\n%+v", name, first.events, again)
		}
	})
}

// streamEvents replays stdout into s, checks each event and the outcomes,
// and returns the events and the first broken rule. It runs off the test's
// goroutine, so it reports instead of failing.
func streamEvents(name string, stdout []byte, s cliStream) ([]Event, error) {
	var events []Event
	var broken error
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), 16<<20) // as Process.Lines
	for sc.Scan() {
		line := sc.Bytes()
		before := len(events)
		s.handle(line, func(ev Event) {
			if err := checkStreamEvent(name, ev); err != nil && broken == nil {
				broken = err
			}
			events = append(events, ev)
		})
		if broken != nil {
			return events, broken
		}
		if len(events) > before && !json.Valid(line) {
			return events, fmt.Errorf("line %q is not JSON but emitted %+v", line, events[before:])
		}
	}
	for _, run := range []cliRun{
		{exitCode: 0},
		{exitCode: 1, stderr: "Error: something failed\n"},
		{exitCode: 41, stderr: strings.Repeat("x", 3000)},
		{exitCode: -1, err: errors.New("signal: killed")},
	} {
		for _, resumeID := range []string{"", "thread-1"} {
			if err := checkOutcome(name, s.outcome(run, resumeID), run); err != nil {
				return events, err
			}
		}
	}
	return events, nil
}

func checkStreamEvent(name string, ev Event) error {
	set := 0
	for _, field := range []string{ev.ChatDelta, ev.ProviderThreadID, ev.Warning} {
		if field != "" {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("an event must carry exactly one thing: %+v", ev)
	}
	if ev.Warning != "" && (!strings.HasPrefix(ev.Warning, name+": ") || strings.TrimSpace(ev.Warning) == name+":") {
		return fmt.Errorf("warning %q does not say which CLI it is from and what happened", ev.Warning)
	}
	return nil
}

func checkOutcome(name string, err error, run cliRun) error {
	if err == nil {
		if run.exitCode != 0 {
			return fmt.Errorf("exit status %d was judged a completed turn", run.exitCode)
		}
		return nil
	}
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeProviderError {
		return fmt.Errorf("outcome %v (%T) is not a %s", err, err, wire.CodeProviderError)
	}
	if !strings.HasPrefix(we.Message, name) || len(we.Message) <= len(name)+2 {
		return fmt.Errorf("outcome message %q does not start with the CLI's name and say something", we.Message)
	}
	return nil
}
