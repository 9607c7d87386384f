package provider

import (
	"strconv"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// How long an agent's shell lets one command run, as each CLI documents
// it (issue 26). `pedelec tool-call` exits with TOOL_CALL_PENDING shortly
// before, so the agent gets a handle to wait with instead of a killed
// command; the call goes on in Core. The numbers are the CLIs' defaults
// in the versions Pedelec is tested with (docs/providers.md):
//
//   - Claude Code: the Bash tool's default timeout, 2 minutes
//     (BASH_DEFAULT_TIMEOUT_MS overrides it, and is honoured below).
//   - Codex: exec_command yields back to the model after yield_time_ms,
//     10 s by default, leaving the command running in a session the model
//     must poll; a pending answer before that is clearer.
//   - Gemini CLI: run_shell_command kills a command silent for
//     shellToolInactivityTimeout, 300 s by default.
//   - opencode: the bash tool's default timeout, 120000 ms.
//   - Copilot CLI: a sync shell command moves to the background after
//     initial_wait, 30 s by default.
const (
	claudeShellLimit   = 120 * time.Second
	codexShellLimit    = 10 * time.Second
	geminiShellLimit   = 300 * time.Second
	opencodeShellLimit = 120 * time.Second
	copilotShellLimit  = 30 * time.Second
)

// callBudget is what tool-call may spend of limit: the limit less a
// margin for starting the process and printing the answer (a fifth, at
// most 10 s).
func callBudget(limit time.Duration) time.Duration {
	margin := min(limit/5, 10*time.Second)
	return limit - margin
}

// budgetEnv is the PEDELEC_CALL_BUDGET_MS entry for a CLI whose shell
// limit is limit; env (the provider's environment, the user's settings
// last) may name a longer or shorter one. Settings.Env may also set
// PEDELEC_CALL_BUDGET_MS itself, which wins (it is applied after).
func budgetEnv(limit time.Duration, limitVar string, env ...map[string]string) map[string]string {
	if limit <= 0 {
		return nil
	}
	for _, e := range env {
		if v, ok := e[limitVar]; ok && limitVar != "" {
			if ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && ms > 0 {
				limit = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return map[string]string{wire.EnvCallBudgetMs: strconv.FormatInt(callBudget(limit).Milliseconds(), 10)}
}

// envMap reads KEY=VALUE entries.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
