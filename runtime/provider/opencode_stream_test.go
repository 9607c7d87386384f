package provider

import "testing"

// Exit codes as recorded (meta.json in ../shared/providers): API errors
// exit 1; a signal kills opencode (-1 here) with no final event.
func TestOpencodeStreamReplaysEveryRecording(t *testing.T) {
	const shell = "ses_dd2365addffem8EN45JvgE0tPk"
	killed := "exited with status -1"
	replayAll(t, "opencode-1.18.33", map[string]replayCase{
		"shell-turn.jsonl":         {threadID: shell, chat: "done: hello-from-tool"},
		"resumed-turn.jsonl":       {threadID: shell, chat: "resumed: history has 6 messages; earlier tool output seen=True"},
		"continued-turn.jsonl":     {threadID: shell, chat: "resumed: history has 8 messages; earlier tool output seen=True"},
		"shell-nonzero-exit.jsonl": {threadID: "ses_dd225f126ffeOYmENIGkyt5qX0", chat: `done: tool results: ["oops\n"]`},
		// Six of the ten commands were refused by the rules: each a warning.
		"allowlist.jsonl": {threadID: "ses_dd2359896ffeed7EGKM79SRlkV", chat: "done: tool results: […", warnings: 6},
		// "*": "deny" last drops the bash tool: the model answers without one.
		"allowlist-deny-last.jsonl": {threadID: "ses_dd23503bcffeD42L5BlEJPMMPS", chat: "done: tool results: []"},
		// "ask" is rejected headless, and the run stops there, exit 0.
		"allowlist-ask.jsonl": {threadID: "ses_dd2355028ffelC8WHa0JmOTRaQ", warnings: 1},
		"model-error-401.jsonl": {threadID: "ses_dd232a7d3ffezbm4Ftb8Gv6dKy", exitCode: 1,
			err: "opencode: model API error 401: mock: invalid api key"},
		"model-error-429.jsonl": {threadID: "ses_dd23152d3ffeVGGm3FWocDijp9", exitCode: 1, err: "opencode: model API error 429: mock rate limit"},
		"model-error-500.jsonl": {threadID: "ses_dd2327acaffeiK1dSuf1xPBVcA", exitCode: 1, err: "opencode: model API error 500: mock internal error"},
		"server-down.jsonl": {threadID: "ses_dd23030cbffeHwEIm4K41qrwxC", exitCode: 1,
			err: "opencode: Cannot connect to API: Unable to connect."},
		"signal-oc-INT-pgid.jsonl":      {threadID: "ses_dd2397844ffexdiZOq6LnUeJXk", exitCode: -1, err: killed},
		"signal-oc-INT-pid.jsonl":       {threadID: "ses_dd2399ea2ffef271aYz5vcun9D", exitCode: -1, err: killed},
		"signal-oc-TERM-pgid.jsonl":     {threadID: "ses_dd239c25effeAIu7hOD4i0PkWd", exitCode: -1, err: killed},
		"signal-oc-TERM-pid.jsonl":      {threadID: "ses_dd239e204ffeYbMvxZJycf1GYC", exitCode: -1, err: killed},
		"signal-oc-TERM-pid-hang.jsonl": {exitCode: -1, err: killed},
	}, func() replayStream { return &opencodeStream{} })
}
