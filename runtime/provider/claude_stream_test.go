package provider

import (
	"strings"
	"testing"
)

func TestClaudeStreamTurnWithBash(t *testing.T) {
	for _, tc := range []struct{ file, id, chat string }{
		{"turn-with-bash.jsonl", "ec04bf8a-50c5-4d04-8522-b623f40a1e16", "I will run the command.\n\nDONE. tool said: (Bash completed with no output)"},
		// init is not the first line here.
		{"bare-ui-invalidate-first.jsonl", "aeeb4804-1a8d-469d-879c-46be22f423f2", "I will run the command.\n\nDONE. tool said: bare"},
		// A failing command is the agent's business, not a failed turn.
		{"nonzero-exit-command.jsonl", "b3d05123-6698-4aa9-b391-bda47a599a74", "I will run the command.\n\nDONE. tool said: Exit code 3\noops\npartial"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var s claudeStream
			chat, ids, warnings := replay(t, "claude-2.1.332/"+tc.file, s.handle)
			if strings.Join(ids, ",") != tc.id {
				t.Errorf("thread ids = %v, want [%s]", ids, tc.id)
			}
			if chat != tc.chat {
				t.Errorf("chat = %q, want %q", chat, tc.chat)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings = %q, want none", warnings)
			}
			if err := s.outcome(cliRun{exitCode: 0}, ""); err != nil {
				t.Errorf("outcome = %v, want success", err)
			}
		})
	}
}

func TestClaudeStreamPermissionDenied(t *testing.T) {
	var s claudeStream
	chat, ids, warnings := replay(t, "claude-2.1.332/permission-denied.jsonl", s.handle)
	if len(ids) != 1 || !strings.HasPrefix(chat, "I will run the command.\n\nDONE. tool said: Output redirection") {
		t.Errorf("ids = %v, chat = %q", ids, chat)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "permission denied for Bash: Output redirection to '/home/dev/app/denied.txt' needs approval") {
		t.Errorf("warnings = %q, want the denial", warnings)
	}
	// The model saw the refusal and answered: the turn itself succeeded.
	if err := s.outcome(cliRun{exitCode: 0}, ""); err != nil {
		t.Errorf("outcome = %v, want success", err)
	}
}

func TestClaudeStreamPermissionDeniedEventOnce(t *testing.T) {
	var s claudeStream
	var warnings []string
	for _, l := range []string{
		`{"type":"system","subtype":"init","session_id":"s1"}`,
		`{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"tu1","message":"This command requires approval"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","permission_denials":[{"tool_name":"Bash","tool_use_id":"tu1","tool_input":{"command":"curl x"}}]}`,
	} {
		s.handle([]byte(l), func(ev Event) {
			if ev.Warning != "" {
				warnings = append(warnings, ev.Warning)
			}
		})
	}
	if len(warnings) != 1 || warnings[0] != "claude: permission denied for Bash: This command requires approval" {
		t.Errorf("warnings = %q, want one", warnings)
	}
}

func TestClaudeStreamAPIErrors(t *testing.T) {
	for _, tc := range []struct{ file, msg string }{
		{"api-error-400.jsonl", "claude: API Error: 400 mock failure 400"},
		{"api-retry-then-error.jsonl", "claude: API Error: 500 mock failure 500."},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var s claudeStream
			chat, ids, _ := replay(t, "claude-2.1.332/"+tc.file, s.handle)
			if chat != "" {
				t.Errorf("chat = %q: the synthetic API error message is not the agent's words", chat)
			}
			if len(ids) != 1 {
				t.Errorf("ids = %v", ids)
			}
			// subtype says "success"; is_error decides.
			wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), tc.msg)
			wantProviderError(t, s.outcome(cliRun{exitCode: 0}, ""), tc.msg)
		})
	}
}

func TestClaudeStreamRetryWarning(t *testing.T) {
	var s claudeStream
	_, _, warnings := replay(t, "claude-2.1.332/api-retry-then-error.jsonl", s.handle)
	if len(warnings) != 1 || warnings[0] != "claude: model request failed (500 server_error), retry 1 of 1" {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestClaudeStreamResumeUnknownSession(t *testing.T) {
	var s claudeStream
	chat, ids, _ := replay(t, "claude-2.1.332/resume-unknown-session.jsonl", s.handle)
	if chat != "" || len(ids) != 0 {
		t.Errorf("chat = %q, ids = %v; want nothing (the unknown id is not a thread to keep)", chat, ids)
	}
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, "11111111-2222-3333-4444-555555555555"),
		"claude could not resume session 11111111-2222-3333-4444-555555555555: No conversation found with session ID")
}

func TestClaudeOutcomeWithoutResult(t *testing.T) {
	var s claudeStream
	wantProviderError(t, s.outcome(cliRun{exitCode: 1, stderr: "Error: Invalid API key\n"}, ""), "claude exited with status 1 without a result: Error: Invalid API key")
	// A success result with a non-zero exit is still a failure.
	s.handle([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"x"}`), func(Event) {})
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "claude: hi")
}

// An error result with no words (no result, errors or subtype) and no
// stderr still says what happened. Found by FuzzClaudeStream.
func TestClaudeOutcomeOfAnErrorResultWithoutWords(t *testing.T) {
	var s claudeStream
	s.handle([]byte(`{"type":"result","is_error":true}`), func(Event) {})
	wantProviderError(t, s.outcome(cliRun{}, ""), "claude: the turn failed without saying why")
	wantProviderError(t, s.outcome(cliRun{exitCode: 1, stderr: "boom\n"}, ""), "claude: exited with status 1: boom")
}

func TestClaudeArgs(t *testing.T) {
	c := NewClaude(Settings{Args: []string{"--max-turns", "5"}}).(*cliAgent)
	got := strings.Join(c.args(&Turn{ResumeID: "s1", Model: "opus"}), " ")
	want := "-p --output-format stream-json --verbose --include-partial-messages --tools Bash --model opus --resume s1 --max-turns 5 --allowedTools " + strings.Join(ClaudeAllowedTools, " ")
	if got != want {
		t.Errorf("args:\n got %s\nwant %s", got, want)
	}
	if first := strings.Join(c.args(&Turn{}), " "); strings.Contains(first, "--resume") || strings.Contains(first, "--model") {
		t.Errorf("first turn args: %s", first)
	}
}

func TestClaudeStreamSkipsSubagentText(t *testing.T) {
	var s claudeStream
	var chat strings.Builder
	for _, l := range []string{
		`{"type":"assistant","parent_tool_use_id":"toolu_1","message":{"content":[{"type":"text","text":"inner"}]}}`,
		`{"type":"assistant","parent_tool_use_id":null,"message":{"content":[{"type":"text","text":"outer"}]}}`,
	} {
		s.handle([]byte(l), func(ev Event) { chat.WriteString(ev.ChatDelta) })
	}
	if chat.String() != "outer" {
		t.Errorf("chat = %q, want only the top-level text", chat.String())
	}
}

func TestClaudeStreamKeepsLinesWithChangedFieldTypes(t *testing.T) {
	var s claudeStream
	var ids []string
	for _, l := range []string{
		`{"type":"system","subtype":"init","session_id":"s1","attempt":"one","error":{"nested":true}}`,
		`{"type":"result","subtype":"success","is_error":true,"result":"it broke","errors":[{"message":"x"}],"session_id":"s1"}`,
	} {
		s.handle([]byte(l), func(ev Event) {
			if ev.ProviderThreadID != "" {
				ids = append(ids, ev.ProviderThreadID)
			}
		})
	}
	if len(ids) != 1 || ids[0] != "s1" {
		t.Errorf("ids = %v: init was dropped for an unexpected field type", ids)
	}
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "claude: it broke")
}

func TestClaudeStreamSendsTextAsItStreams(t *testing.T) {
	var s claudeStream
	var deltas []string
	for _, l := range []string{
		`{"type":"system","subtype":"init","session_id":"s1"}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"parent_tool_use_id":null,"api_message_id":"m1"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I will "}},"parent_tool_use_id":null,"api_message_id":"m1"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"run it."}},"parent_tool_use_id":null,"api_message_id":"m1"}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"text","text":"I will run it."}]},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}},"parent_tool_use_id":null,"api_message_id":"m1"}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"inner"}},"parent_tool_use_id":"t","api_message_id":"m9"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done"}},"parent_tool_use_id":null,"api_message_id":"m2"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"."}},"parent_tool_use_id":null,"api_message_id":"m2"}`,
		`{"type":"assistant","message":{"id":"m2","model":"x","content":[{"type":"text","text":"Done."}]},"parent_tool_use_id":null}`,
		// A block that did not stream (a non-streaming fallback) is sent whole.
		`{"type":"assistant","message":{"id":"m3","model":"x","content":[{"type":"text","text":"Whole."}]},"parent_tool_use_id":null}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Whole.","session_id":"s1"}`,
	} {
		s.handle([]byte(l), func(ev Event) {
			if ev.ChatDelta != "" {
				deltas = append(deltas, ev.ChatDelta)
			}
		})
	}
	want := []string{"I will ", "run it.", "\n\nDone", ".", "\n\nWhole."}
	if strings.Join(deltas, "|") != strings.Join(want, "|") {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
}
