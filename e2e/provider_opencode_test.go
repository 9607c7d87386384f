package e2e

import (
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

var opencodeCLI = agentCLI{
	name:      "opencode",
	binary:    testenv.OpencodeBinary,
	newServer: modelserver.NewChatCLI,
	env:       func(t testing.TB, _ string) map[string]string { return map[string]string{"HOME": t.TempDir()} },
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.ToolMessage()
		return out
	},
	settingsFor:  modelserver.OpencodeSettings,
	redirectRuns: true,
	refusal:      "prevents you from using",
	privateHome:  true,
	// A 185 MB Bun binary: 6 s idle, over 2 min at a load average of 40.
	slowStart: 150 * time.Second,
}

func TestOpencodeThroughCore(t *testing.T) { testCLIToolCallsAndResume(t, opencodeCLI) }
func TestOpencodeInBrowser(t *testing.T)   { testCLIInBrowser(t, opencodeCLI) }
func TestOpencodeModelErrorThroughCore(t *testing.T) {
	testCLIModelError(t, opencodeCLI, "mock bad request")
}
func TestOpencodeModelDownThroughCore(t *testing.T)      { testCLIModelDown(t, opencodeCLI) }
func TestOpencodeModelHangs(t *testing.T)                { testCLIModelHangs(t, opencodeCLI) }
func TestOpencodeEndMidTurnLeavesNoProcess(t *testing.T) { testCLIEndMidTurn(t, opencodeCLI) }
func TestOpencodeRefusesForbiddenCommands(t *testing.T) {
	testCLIForbiddenCommands(t, opencodeCLI)
}
