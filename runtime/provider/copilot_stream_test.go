package provider

import "testing"

// Exit codes as recorded: a failed turn exits 1 after session.error.
func TestCopilotStreamReplaysEveryRecording(t *testing.T) {
	const shell = "223a9389-721c-47ef-9416-ed27e9edddba"
	replayAll(t, "copilot-1.0.102", map[string]replayCase{
		"shell-turn.jsonl":   {threadID: shell, chat: "done: hello-from-tool"},
		"resumed-turn.jsonl": {threadID: shell, chat: "resumed: history has 6 messages; earlier tool output seen=True"},
		// Eight of nine commands denied headless: only the pedelec-cli one ran
		// (shell(pedelec tool-call:*) matches on the stem "pedelec" alone).
		"allowlist.jsonl": {threadID: "621d3027-ace6-4cfb-a068-c72eee4689ed", chat: "done: tool results: […", warnings: 8},
		"model-error-401.jsonl": {threadID: "51d23ba5-140c-40ef-9ffd-e5ef06101f98", exitCode: 1, warnings: 2,
			err: "copilot: model API error 401: Authentication failed with provider"},
		"model-error-500.jsonl": {threadID: "7cc4e708-8d35-4929-801b-96b16bf6fab5", exitCode: 1, warnings: 5,
			err: "copilot: model API error 500: Failed to get response from the AI model; retried 5 times"},
		"server-down.jsonl": {threadID: "c6571b1e-64f3-4e02-8416-f4c445baaced", exitCode: 1, warnings: 5,
			err: "copilot: Could not connect to local model provider at http://127.0.0.1:18506/v1."},
	}, func() replayStream { return &copilotStream{} })
}

func TestCopilotStreamWholeMessageWithoutDeltas(t *testing.T) {
	var s copilotStream
	var chat string
	for _, l := range []string{
		`{"type":"assistant.message","data":{"messageId":"a","content":"first"}}`,
		`{"type":"assistant.message_delta","data":{"messageId":"b","deltaContent":"sec"}}`,
		`{"type":"assistant.message_delta","data":{"messageId":"b","deltaContent":"ond"}}`,
		`{"type":"assistant.message","data":{"messageId":"b","content":"second"}}`,
		`{"type":"result","sessionId":"s1","exitCode":0}`,
	} {
		s.handle([]byte(l), func(ev Event) { chat += ev.ChatDelta })
	}
	if chat != "first\n\nsecond" {
		t.Errorf("chat = %q", chat)
	}
	if err := s.outcome(cliRun{}, ""); err != nil {
		t.Errorf("outcome = %v", err)
	}
	wantProviderError(t, (&copilotStream{}).outcome(cliRun{exitCode: -1}, "s1"), "copilot exited with status -1 while resuming session s1")
}
