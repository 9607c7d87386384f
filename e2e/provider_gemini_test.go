package e2e

import (
	"fmt"
	"os"
	"path/filepath"
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
	// The native adapter; ACP, the default, is provider_acp_test.go's.
	settings:    "acp = false\n" + `default_model = "` + modelserver.GeminiModel + `"`,
	privateHome: true,
	// A second policy file (--policy adds to Pedelec's) allows sleep.
	allowSleep: func(t *testing.T) string {
		file := filepath.Join(t.TempDir(), "sleep.toml")
		rule := "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"sleep\"]\ndecision = \"allow\"\npriority = 100\n"
		if err := os.WriteFile(file, []byte(rule), 0o600); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("args = [\"--policy\", %q]", file)
	},
}

func TestGeminiThroughCore(t *testing.T) { testCLIToolCallsAndResume(t, geminiCLI) }
func TestGeminiInBrowser(t *testing.T)   { testCLIInBrowser(t, geminiCLI) }
func TestGeminiModelErrorThroughCore(t *testing.T) {
	testCLIModelError(t, geminiCLI, "mock bad request")
}
func TestGeminiModelDownThroughCore(t *testing.T)      { testCLIModelDown(t, geminiCLI) }
func TestGeminiEndMidTurnLeavesNoProcess(t *testing.T) { testCLIEndMidTurn(t, geminiCLI) }

func TestGeminiRefusesForbiddenCommands(t *testing.T) {
	testCLIForbiddenCommands(t, geminiCLI)
}

func TestGeminiEndMidTurnStopsTheAgentsSleep(t *testing.T) {
	testCLIEndMidTurnWithSleep(t, geminiCLI)
}

func TestGeminiModelHangs(t *testing.T) { testCLIModelHangs(t, geminiCLI) }
