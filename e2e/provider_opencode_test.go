package e2e

import (
	"os"
	"path/filepath"
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
	settingsFor: modelserver.OpencodeSettings,
	settings:    "acp = false", // the native adapter; ACP, the default, is provider_acp_test.go's
	// opencode reads a project opencode.json from the working directory,
	// merged over Pedelec's config: a rule there allows sleep too.
	allowSleep: func(*testing.T) string { return "" },
	allowSleepIn: func(t *testing.T, work string) {
		rule := `{"permission":{"bash":{"sleep *":"allow"}}}`
		if err := os.WriteFile(filepath.Join(work, "opencode.json"), []byte(rule), 0o600); err != nil {
			t.Fatal(err)
		}
	},
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

func TestOpencodeEndMidTurnStopsTheAgentsSleep(t *testing.T) {
	testCLIEndMidTurnWithSleep(t, opencodeCLI)
}
