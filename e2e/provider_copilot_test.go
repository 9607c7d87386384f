package e2e

import (
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

var copilotCLI = agentCLI{
	name:      "copilot",
	binary:    testenv.CopilotBinary,
	newServer: modelserver.NewChatCLI,
	// HOME stays the developer's: Copilot unpacks its own files into
	// ~/.cache/copilot once (several seconds), not per test.
	env:      func(testing.TB, string) map[string]string { return map[string]string{} },
	settings: "acp = false", // the native adapter; ACP, the default, is provider_acp_test.go's
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.ToolMessage()
		return out
	},
	settingsFor: func(baseURL string) string {
		return strings.Join([]string{
			`base_url = "` + baseURL + `/v1"`,
			`api_key = "test-key"`,
			`default_model = "` + modelserver.CLIChatModel + `"`,
		}, "\n")
	},
	allowSleep: func(*testing.T) string { return `args = ["--allow-tool", "shell(sleep:*)"]` },
}

func TestCopilotThroughCore(t *testing.T) { testCLIToolCallsAndResume(t, copilotCLI) }
func TestCopilotInBrowser(t *testing.T)   { testCLIInBrowser(t, copilotCLI) }
func TestCopilotModelErrorThroughCore(t *testing.T) {
	testCLIModelError(t, copilotCLI, "mock bad request")
}
func TestCopilotModelDownThroughCore(t *testing.T)      { testCLIModelDown(t, copilotCLI) }
func TestCopilotModelHangs(t *testing.T)                { testCLIModelHangs(t, copilotCLI) }
func TestCopilotEndMidTurnLeavesNoProcess(t *testing.T) { testCLIEndMidTurn(t, copilotCLI) }
func TestCopilotRefusesForbiddenCommands(t *testing.T) {
	testCLIForbiddenCommands(t, copilotCLI)
}
func TestCopilotEndMidTurnStopsTheAgentsSleep(t *testing.T) {
	testCLIEndMidTurnWithSleep(t, copilotCLI)
}
