package e2e

import (
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

var geminiCLI = agentCLI{
	name:      "gemini",
	binary:    testenv.GeminiBinary,
	newServer: modelserver.NewGemini,
	env:       modelserver.GeminiEnv,
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.FunctionResponse()
		return out
	},
	settings: `default_model = "` + modelserver.GeminiModel + `"`,
}

func TestGeminiThroughCore(t *testing.T) { testCLIToolCallsAndResume(t, geminiCLI) }
func TestGeminiInBrowser(t *testing.T)   { testCLIInBrowser(t, geminiCLI) }
func TestGeminiModelErrorThroughCore(t *testing.T) {
	testCLIModelError(t, geminiCLI, "mock bad request")
}
func TestGeminiModelDownThroughCore(t *testing.T)      { testCLIModelDown(t, geminiCLI) }
func TestGeminiEndMidTurnLeavesNoProcess(t *testing.T) { testCLIEndMidTurn(t, geminiCLI) }
