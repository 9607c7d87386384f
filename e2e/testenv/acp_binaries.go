package testenv

import "testing"

// The ACP agents the tests install (e2e/npm/package.json) besides the CLIs
// that also have a native adapter.

// QwenBinary is Qwen Code (@qwen-code/qwen-code).
func QwenBinary(t testing.TB) string { return npmBin(t, "qwen", "PEDELEC_QWEN_BIN") }

// ClaudeACPBinary is Zed's ACP adapter for Claude Code (@zed-industries/claude-agent-acp).
func ClaudeACPBinary(t testing.TB) string {
	return npmBin(t, "claude-agent-acp", "PEDELEC_CLAUDE_ACP_BIN")
}

// CodexACPBinary is Zed's ACP adapter for Codex (@zed-industries/codex-acp).
func CodexACPBinary(t testing.TB) string { return npmBin(t, "codex-acp", "PEDELEC_CODEX_ACP_BIN") }
