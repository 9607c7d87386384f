package e2e

import (
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

var claudeCLI = agentCLI{
	name:      "claude",
	binary:    testenv.ClaudeBinary,
	newServer: modelserver.NewMessages,
	env:       modelserver.ClaudeEnv,
	toolOutput: func(r modelserver.Request) string {
		out, _, _ := r.ToolResult()
		return out
	},
}

func TestClaudeThroughCore(t *testing.T) { testCLIToolCallsAndResume(t, claudeCLI) }
func TestClaudeInBrowser(t *testing.T)   { testCLIInBrowser(t, claudeCLI) }
func TestClaudeModelErrorThroughCore(t *testing.T) {
	testCLIModelError(t, claudeCLI, "mock bad request")
}
func TestClaudeModelDownThroughCore(t *testing.T)      { testCLIModelDown(t, claudeCLI) }
func TestClaudeEndMidTurnLeavesNoProcess(t *testing.T) { testCLIEndMidTurn(t, claudeCLI) }
