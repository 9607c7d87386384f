package commands

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "Serve the open pages' tools to an MCP client over stdio",
		Description: `An MCP server on stdin/stdout, started by an MCP client (Claude Code, Codex,
Cursor, VS Code, the MCP Inspector) from its config. Its tools are the tools of
every page that created a session with provider "mcp" in the running Core
('pedelec serve'); a tool whose name another open page's tool already has
is prefixed "page<N>__", and a name once listed stays while its page is
open. Calls go through Core exactly like 'pedelec tool-call'.

It authenticates with the token 'pedelec serve' writes to <state-dir>/core-token.
If Core is not running, the tool list is empty and stderr says how to start it;
the client is told (notifications/tools/list_changed) when Core comes up and
whenever pages come and go. See docs/mcp.md for client configs.

With a session's environment (PEDELEC_THREAD_ID and PEDELEC_AGENT_SECRET, as
Core gives the agent it drives, or --thread-id and the secret in the
environment) it serves that one session instead: its tools under their own
names, each call exactly as 'pedelec tool-call' makes it. It exits when the
session ends.`,
		Flags: []cli.Flag{
			coreURLFlag(),
			stateDirFlag("its token and address"),
			&cli.StringFlag{Name: "thread-id", Usage: "serve this one session's tools (Core gives its agent the id in " + wire.EnvThreadID + ")", EnvVars: []string{wire.EnvThreadID}},
			&cli.StringFlag{Name: "agent-secret", Usage: "the session's secret; prefer the environment, which other users cannot read", EnvVars: []string{wire.EnvSecret}},
		},
		Action: runMCP,
	}
}

func runMCP(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("mcp takes no arguments (got %v); MCP clients start it as `pedelec mcp`", c.Args().Slice())
	}
	collectLessOften()
	logger := loggerFrom(c)
	thread, secret := c.String("thread-id"), c.String("agent-secret")
	if (thread == "") != (secret == "") {
		return usageErrorf("serving one session needs both its id (--thread-id or %s) and its secret (%s); without either, pedelec mcp serves every page whose provider is \"mcp\"",
			wire.EnvThreadID, wire.EnvSecret)
	}
	at, err := findCore(c)
	if err != nil {
		return err
	}
	bridge := mcpbridge.NewBridge(at.url, c.String("state-dir"), logger)
	opts := mcpbridge.Options{Logger: logger}
	if thread != "" {
		bridge = mcpbridge.NewSessionBridge(at.url, thread, secret, coreauth.FromEnv(os.Getenv, c.String("state-dir")), logger)
		opts.Instructions = mcpbridge.SessionInstructions
	}
	mirror := mcpbridge.NewMirror(versionString(), bridge.Call, opts)
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	var gone atomic.Pointer[wire.Error]
	bridge.Gone = func(werr *wire.Error) {
		// The session is over: an MCP server left running for it would
		// serve nothing, and an agent that lost track of it would leak it.
		gone.Store(werr)
		cancel()
	}
	if isTerminal(c.App.Reader) {
		// Started by hand, it would wait on the terminal with no word.
		fmt.Fprintln(c.App.ErrWriter, mcpByHandHint)
	}
	ready := make(chan struct{})
	go bridge.Follow(ctx, mirror, ready)
	select { // the first tools/list must already hold the pages' tools
	case <-ready:
	case <-time.After(5 * time.Second):
	}
	// ServeStdio returns when the client closes stdin: the normal way to stop.
	if err := mcpbridge.ServeStdio(ctx, mirror, c.App.Reader, c.App.Writer); err != nil && ctx.Err() == nil {
		logger.Debug("mcp session ended", "err", err)
	}
	if werr := gone.Load(); werr != nil {
		return failed("session " + thread + " is gone: " + string(werr.Code))
	}
	return nil
}

// collectLessOften lets the heap of `pedelec mcp` grow to five times
// what is live before a collection, not twice (unless GOGC says
// otherwise), within a soft limit of mcpMemoryLimit. Its live heap is a few
// MB (the mirrored tools), but the SDK's JSON decoding allocates two 32 KB
// buffers per decode, several per call, so with Go's default a collection
// ran every few dozen calls and took half the process's CPU per call
// (BenchmarkStdioCall: 375-396 -> 190-212 cpu-us; docs/performance.md).
func collectLessOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mcpMemoryLimit)
	}
}

// mcpMemoryLimit is where the collector works harder whatever GOGC says:
// far above what a client's pages make `pedelec mcp` hold.
const mcpMemoryLimit = 256 << 20

// mcpByHandHint is what `pedelec mcp` says when a person runs it in a
// terminal: it is a server an MCP client starts, and it now waits for that
// client's JSON-RPC on stdin.
const mcpByHandHint = `pedelec mcp: this is an MCP server on stdin/stdout, for an MCP client to start from its config
(for example: claude mcp add pedelec -- pedelec mcp; see docs/mcp.md). It now waits for the
client's JSON-RPC messages on stdin. To try it by hand, use the MCP Inspector:
  npx @modelcontextprotocol/inspector pedelec mcp
Press Ctrl-D to stop.`

// isTerminal reports whether r is a terminal, as stdin is when a person
// starts the command rather than a client (asked of the terminal driver:
// /dev/null is a character device too).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
