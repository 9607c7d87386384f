package provider

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// replayCase is what one recording of a CLI must come to: the thread id
// reported, the chat text (whole, or a prefix ending in "…"), the
// warnings' count, and the outcome (empty: success; else a PROVIDER_ERROR
// message that contains it) for the exit code recorded beside it.
type replayCase struct {
	threadID string
	chat     string
	warnings int
	exitCode int
	err      string
}

// replayAll replays every recording under testdata/dir and checks it
// against cases, which must name each of them: a new recording without an
// expectation fails.
func replayAll(t *testing.T, dir string, cases map[string]replayCase, newStream func() replayStream) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no recordings in testdata/%s", dir)
	}
	for _, name := range names {
		c, ok := cases[name]
		if !ok {
			t.Errorf("recording %s has no expectation in the replay test", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			s := newStream()
			chat, ids, warnings := replay(t, dir+"/"+name, s.handle)
			gotID := strings.Join(ids, ",")
			if gotID != c.threadID {
				t.Errorf("thread ids = %q, want %q", gotID, c.threadID)
			}
			if prefix, ok := strings.CutSuffix(c.chat, "…"); ok {
				if !strings.HasPrefix(chat, prefix) {
					t.Errorf("chat = %q, want it to start with %q", chat, prefix)
				}
			} else if chat != c.chat {
				t.Errorf("chat = %q, want %q", chat, c.chat)
			}
			if len(warnings) != c.warnings {
				t.Errorf("warnings = %q, want %d", warnings, c.warnings)
			}
			err := s.outcome(cliRun{exitCode: c.exitCode}, "")
			if c.err == "" {
				if err != nil {
					t.Errorf("outcome = %v, want success", err)
				}
				return
			}
			wantProviderError(t, err, c.err)
		})
	}
	for name := range cases {
		if _, err := filepath.Glob(filepath.Join("testdata", dir, name)); err != nil || !contains(names, name) {
			t.Errorf("expectation for %s, which is not a recording", name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The exit codes are the recorded ones (meta.json beside each recording in
// ../shared/providers): an API error exits with its HTTP status mod 256, a
// signal with 0 and no result event.
func TestGeminiStreamReplaysEveryRecording(t *testing.T) {
	const id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	aborted := "exited without finishing the turn (no result event)"
	replayAll(t, "gemini-0.61.0", map[string]replayCase{
		"shell-turn.jsonl":         {threadID: id, chat: "done: hello-from-tool"},
		"resumed-turn.jsonl":       {threadID: id, chat: "resumed: history has 5 contents; earlier tool output seen=True"},
		"shell-nonzero-exit.jsonl": {threadID: "28422012-68b4-4116-86b5-27ea1d7ee7d3", chat: `done: tool results: …`},
		"auto-model-routing.jsonl": {threadID: "83fb8db5-0c8c-4b04-87b7-0a99cfe9488b", chat: "done: hello-from-tool"},
		// Six commands refused by the policy, one (a redirect) by the confirmation
		// rule: seven warnings, and the turn still succeeds.
		"allowlist.jsonl":          {threadID: "c5135ffd-702b-44c1-b175-230f60162491", chat: "done: tool results: …", warnings: 7},
		"allowed-tools-flag.jsonl": {threadID: "905c76ef-7b15-46c4-999a-5c27f2ccbcce", chat: "done: tool results: …", warnings: 2},
		"model-error-401.jsonl": {threadID: "6c7cc76b-0e50-42b2-a611-11e95871693c", exitCode: 145,
			err: "gemini: model API error 401: mock: API key not valid"},
		"model-error-429.jsonl": {threadID: "8ebcf653-b05d-4377-96da-44a4e62f7ee2", exitCode: 173,
			err: "gemini: model API error: mock quota (Please wait and try again later."},
		"model-error-500.jsonl": {threadID: "81b78b2f-56ff-4267-b3f4-13629b0a5449", exitCode: 244,
			err: "gemini: model API error 500: mock internal error"},
		"model-error-500-default-retries.jsonl": {threadID: "35eba6a3-ba93-44ae-982a-65f165b9b194", exitCode: 244,
			err: "gemini: model API error 500: mock internal error"},
		"server-down.jsonl": {threadID: "7a142d5f-1186-4476-92e2-f06ea9ac5d62", exitCode: 1,
			err: "gemini: model API error: exception TypeError: fetch failed sending request"},
		"server-down-default-retries.jsonl": {threadID: "7374b45f-6deb-4661-9185-075acdeacf80", exitCode: 1,
			err: "fetch failed sending request"},
		// --output-format json (one object at exit) is not the stream Pedelec
		// reads: nothing in it is taken for an event.
		"json-output.jsonl": {err: aborted},
		// Stopped by a signal mid-command: exit 0 and no result event.
		"signal-gem-nr-INT-pgid.jsonl":       {threadID: "6b196b0f-1377-41b1-9dc9-57b9c27c5f2e", err: aborted},
		"signal-gem-nr-INT-pid.jsonl":        {threadID: "c13d0951-c861-4da6-8532-42a9cd9e0650", err: aborted},
		"signal-gem-nr-TERM-pgid-hang.jsonl": {threadID: "3d1862dd-7e13-41c6-8977-57c56997b8cf", err: aborted},
		"signal-gem-nr-TERM-pgid.jsonl":      {threadID: "07b3bf2d-de28-4c0a-b718-544d3baa8307", err: aborted},
		"signal-gem-nr-TERM-pid.jsonl":       {threadID: "c1298ae9-42c7-4741-b5f6-e8f1bbad990a", err: aborted},
		"signal-gem-nr1-INT-pgid.jsonl":      {threadID: "019d85d3-396e-40f4-bdcd-4ef6e1316d96", err: aborted},
		"signal-gem-nr1-INT-pid.jsonl":       {threadID: "59065a48-9878-497b-9e6c-561b83a527fd", err: aborted},
		"signal-gem-nr1-TERM-pgid.jsonl":     {threadID: "48405a6e-5591-4794-ac92-598e867a087f", err: aborted},
		"signal-gem-nr1-TERM-pid-hang.jsonl": {threadID: "10fff85d-1ea7-4f0c-87e2-89ef375fc5ae", err: aborted},
		"signal-gem-nr1-TERM-pid.jsonl":      {threadID: "c3304629-7dc0-4cec-baa4-f30a3f7cd973", err: aborted},
	}, func() replayStream { return &geminiStream{} })
}

// replayStream is a CLI's stream parser as the replay tests drive it.
type replayStream interface {
	handle(line []byte, emit func(Event))
	outcome(run cliRun, resumeID string) error
}

// An error without a message is still reported, as one. Found by
// FuzzGeminiStream.
func TestGeminiStreamErrorWithoutMessage(t *testing.T) {
	var s geminiStream
	var warnings []string
	s.handle([]byte(`{"type":"error","severity":"error"}`), func(ev Event) { warnings = append(warnings, ev.Warning) })
	if want := "gemini: an error without a message"; len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "gemini exited with status 1")
}
