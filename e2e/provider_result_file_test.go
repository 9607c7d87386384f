package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Whether the agent can read the file a large result was written to
// depends on the CLI: on its shell's permissions and the directory it may
// read. Real Claude Code, against a scripted model: the tool-call answer
// it sends back is the small pointer, and its next command, reading the
// documented location (assets/tool-results/ in its working directory)
// with a read-only command, runs without asking and returns the page's
// JSON.
func TestClaudeReadsLargeResultFile(t *testing.T) {
	cli := claudeCLI
	ms := cli.newServer(t)
	env := cli.env(t, ms.URL)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), env, "--max-inline-result-bytes", "1024")
	page := dialCLIPage(t, srv)
	rows := make([]map[string]any, 300)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": "row-" + itoa(i)}
	}
	page.Handle("update_counter", func(json.RawMessage) any { return map[string]any{"rows": rows} })
	sid := cliSession(t, page, cli)
	ms.Push(
		modelserver.Run(`pedelec-cli --thread-id `+sid+` tool-call update_counter '{"delta":1}'`),
		modelserver.Run(`head -c 120 assets/tool-results/update_counter-*.json`),
		modelserver.Say("Read it."),
	)
	_, done := cliTurn(t, page, sid, "Read the table.")
	if done.Error != nil || !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	reqs := ms.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model requests = %d, want 3", len(reqs))
	}
	var answer wire.AgentResult
	first := cli.toolOutput(reqs[1])
	if err := json.Unmarshal([]byte(strings.TrimSpace(first)), &answer); err != nil || answer.ResultFile == nil {
		t.Fatalf("the model got %.400s; want the result file's pointer", first)
	}
	work := runtime.WorkDir(srv.StateDir, sid)
	if rel, err := filepath.Rel(work, answer.ResultFile.Path); err != nil || !strings.HasPrefix(rel, "work/assets/tool-results/") {
		t.Errorf("the file %s is not in the agent's working directory %s/work", answer.ResultFile.Path, work)
	}
	if second := cli.toolOutput(reqs[2]); !strings.HasPrefix(strings.TrimSpace(second), `{"rows":[{"id":0,"name":"row-0"}`) {
		t.Errorf("reading the file, the model got %.400s", second)
	}
}
