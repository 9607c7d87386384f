package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Qwen Code's first prompt no longer checks the schema of every built-in
// tool (a fresh Ajv validator per tool, compiling the JSON Schema
// meta-schema each time): the session's Qwen settings defer the built-in
// tools behind tool_search and tool_call (tools.eager = []), so the first
// model request declares only the bridge and the few tools Qwen keeps up
// front (and the page's tools, named in tools.visible). Also checked: the
// early start asks the model nothing, the settings file is the session's
// own, and Qwen runs as one CLI process (no relaunch with a larger heap). Not timed: docs/performance.md has the figures.
func TestQwenACPFirstPromptDeclaresTheBridgeOnly(t *testing.T) {
	cli := qwenACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	// Core notes the start's end only at the turn that takes the agent:
	// wait for the agent, then for it to go quiet (its start is over).
	awaitEarlyAgentIdle(t, srv, sid)
	early := agentLeaders(srv, sid)
	if n := len(ms.Requests()) + len(ms.SideRequests()); n != 0 {
		t.Fatalf("the early start sent %d model requests, want none", n)
	}

	data, err := os.ReadFile(filepath.Join(runtime.WorkDir(srv.StateDir, sid), "qwen", ".qwen", "settings.json"))
	if err != nil {
		t.Fatalf("the session's Qwen settings: %v", err)
	}
	var settings struct {
		Tools struct {
			Eager *[]string `json:"eager"`
		} `json:"tools"`
		Privacy struct {
			UsageStatisticsEnabled *bool `json:"usageStatisticsEnabled"`
		} `json:"privacy"`
	}
	if err := json.Unmarshal(data, &settings); err != nil || settings.Tools.Eager == nil || len(*settings.Tools.Eager) != 0 ||
		settings.Privacy.UsageStatisticsEnabled == nil || *settings.Privacy.UsageStatisticsEnabled {
		t.Errorf("the session's Qwen settings (%v):\n%s", err, data)
	}
	if n := qwenCLIProcesses(sid); n != 1 {
		t.Errorf("the session runs %d qwen cli.js processes, want 1 (QWEN_CODE_NO_RELAUNCH)", n)
	}

	ms.Push(modelserver.Step{Text: "Done.", Repeat: true})
	if _, done := cliTurn(t, page, sid, "Say done."); !done.OK {
		t.Fatalf("the first turn failed: %+v", done.Error)
	}
	reqs := ms.Requests()
	if len(reqs) == 0 {
		t.Fatal("the turn made no model request with tools")
	}
	var first struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &first); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range first.Tools {
		names = append(names, tool.Function.Name)
	}
	for _, want := range []string{"tool_search", "tool_call"} {
		if !slices.Contains(names, want) {
			t.Errorf("the first model request's tools %v lack %s (the way to the deferred tools)", names, want)
		}
	}
	for _, deferred := range []string{"read_file", "run_shell_command", "write_file", "edit", "glob", "grep_search", "agent", "skill"} {
		if slices.Contains(names, deferred) {
			t.Errorf("the first model request declares %s (tools %v): the built-in tools are not deferred", deferred, names)
		}
	}
	if now := agentLeaders(srv, sid); len(early) != 1 || !slices.Equal(now, early) {
		t.Errorf("agents after the first turn %v, want only the one createSession started %v", now, early)
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}

// qwenCLIProcesses counts the session's processes running Qwen Code's
// cli.js (its launcher, cli-entry.js, is not one).
func qwenCLIProcesses(sid string) int {
	n := 0
	for _, pid := range sessionPIDs(sid) {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			continue
		}
		for _, arg := range strings.Split(string(cmdline), "\x00") {
			if filepath.Base(arg) == "cli.js" {
				n++
				break
			}
		}
	}
	return n
}
