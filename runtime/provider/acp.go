package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// An ACP agent (Agent Client Protocol: JSON-RPC over the agent's stdio) is
// one warm process per session: the first turn starts it, initializes,
// opens an ACP session with Pedelec's MCP server for this Pedelec session
// (Turn.MCP) and prompts; a later turn is one more session/prompt on the
// same process and ACP session. The process ends with the Pedelec session
// (CloseSession), when Core stops, after IdleTimeout without a turn, or
// when a turn cannot be cancelled cleanly. The provider thread id is the
// ACP sessionId, so a turn after a Core restart starts the agent again and
// session/load's it (or, where the agent cannot, opens a new session and
// says so in a warning). What differs between agents is an acpSpec
// (acp_agents.go); the facts each was checked against are cited as
// FACTS-acp §n (the providers' notes kept beside the repository).

// acpSpec describes one ACP agent.
type acpSpec struct {
	name, description string
	// command, envVar, npmPackage and native find the program and its
	// version, as for a CLI agent (cliSpec).
	command, envVar, npmPackage string
	native                      func(path string) (string, error)
	// args is the command line (before Settings.Args).
	args func(a cliArgs) []string
	// prepare writes what the agent needs into the session's directory and
	// returns environment entries (Settings.Env overrides them).
	prepare func(a cliArgs) (map[string]string, error)
	// meta is session/new's and session/load's _meta (claude's
	// disableBuiltInTools).
	meta map[string]any
	// beforeLoad, if set, runs before session/load with the agent's
	// environment and the session id (gemini_acp_load.go).
	beforeLoad func(env map[string]string, sessionID string) error
	// warmUp, if set, runs after an early start's session/new, before the
	// agent is handed to a turn: work the agent would otherwise do at its
	// first prompt (acp_warmup.go).
	warmUp func(ctx context.Context, w *acpWarm, turn *Turn)
	// mode, if set, is set with session/set_mode after session/new (qwen:
	// "default", in which it asks before writing).
	mode string
	// stdioMCP gives the MCP server in its stdio form (the default is
	// HTTP, which every agent here takes; copilot takes nothing else).
	stdioMCP bool
	// restartAfterCancel: a cancelled turn leaves the agent unusable
	// (claude-agent-acp 0.23.1 answers every later prompt with the
	// previous answer), so the process is stopped and the next turn
	// session/load's the session in a new one.
	restartAfterCancel bool
	// mcpByEnv names the session's secret and id in the MCP server it is
	// given by their variables (${PEDELEC_AGENT_SECRET}), which the agent
	// expands from its environment: claude-agent-acp hands its MCP servers
	// to the claude it starts as `--mcp-config <json>`, a command line
	// every local user can read until claude rewrites it.
	mcpByEnv bool
	// toolsAtStart: the agent learns the session's tools only when it
	// starts (Qwen Code 0.24 ignores the MCP server's tools/list_changed
	// and lists the page's tools in its settings), so a turn whose tools
	// differ from its agent's start stops that agent and session/load's
	// the session in a new one, which sees the new tools.
	toolsAtStart bool
}

// acpDeadline bounds each ACP request but session/prompt (which runs as
// long as the turn may): initialize and session/new start node programs
// and MCP servers on a loaded machine.
const acpDeadline = 90 * time.Second

// acpCancelWait is how long a cancelled turn waits for the agent's
// stopReason before the process is stopped instead.
const acpCancelWait = 5 * time.Second

// DefaultACPIdle is how long a warm agent waits for its session's next turn.
const DefaultACPIdle = 10 * time.Minute

// acpAgent is the Provider for an ACP agent.
type acpAgent struct {
	spec     acpSpec
	settings Settings
	program  *cliProgram
	idle     time.Duration

	mu   sync.Mutex
	warm map[string]*acpWarm // by Pedelec session id
	// starting are the early starts under way (acp_early.go).
	starting map[string]*acpStart
	// stopping are closed when the session's agent being stopped is gone.
	stopping map[string]chan struct{}
	clock    func(time.Duration, func()) *time.Timer
}

// acpWarm is one session's live agent.
type acpWarm struct {
	proc      *acpProcess
	conn      *acpConnection
	client    *acpClient
	bound     *acpBound // what the agent may make Core hold (acp_bound.go)
	sessionID acp.SessionId
	idle      *time.Timer
	// turnEnded is when the last session/prompt answered.
	turnEnded atomic.Int64
	// pending are an early start's events (a load that fell back, how
	// long the start took) for the first turn on this agent; under
	// acpAgent.mu.
	pending []Event
	// tools is the tool set the agent started with (toolsKey), for
	// acpSpec.toolsAtStart.
	tools string
	// inTurn: a RunTurn has taken the agent (from taking it to re-arming
	// its idle timer); RestartForTools leaves it to that turn. Under
	// acpAgent.mu.
	inTurn bool
}

// acpSettle is how long an agent gets after a turn before it is stopped:
// Gemini CLI writes the turn's end to its session file after answering
// session/prompt. (Its "No previous sessions found for this project" on a
// later session/load was another thing, the load clobbering that file
// within the same minute: gemini_acp_load.go.)
const acpSettle = time.Second

// acpConnection is the SDK's client-side connection, under a name of its own.
type acpConnection = acp.ClientSideConnection

func newACPAgent(spec acpSpec, s Settings) *acpAgent {
	idle := DefaultACPIdle
	if d, err := time.ParseDuration(s.IdleTimeout); err == nil && d > 0 {
		idle = d
	}
	return &acpAgent{spec: spec, settings: s, idle: idle, warm: map[string]*acpWarm{}, starting: map[string]*acpStart{}, stopping: map[string]chan struct{}{}, clock: time.AfterFunc,
		program: &cliProgram{name: spec.name, command: spec.command, envVar: spec.envVar,
			explicit: s.Executable, env: s.Env, native: spec.native, npmPackage: spec.npmPackage}}
}

func (a *acpAgent) Name() string   { return a.spec.name }
func (a *acpAgent) TakesMCP() bool { return true }

func (a *acpAgent) Check(ctx context.Context) wire.ProviderInfo {
	info := a.program.check(ctx, a.spec.description)
	info.DefaultModel = a.settings.DefaultModel
	return info
}

// CloseSession stops the session's agent, if one is warm, and returns when
// it is gone, also when another goroutine is already stopping it: Core
// stopping must not exit while an agent it started still runs.
func (a *acpAgent) CloseSession(sessionID string) {
	a.cancelStart(sessionID)
	a.mu.Lock()
	w := a.warm[sessionID]
	a.mu.Unlock()
	if w != nil {
		a.drop(sessionID, w)
		return
	}
	a.mu.Lock()
	gone := a.stopping[sessionID]
	a.mu.Unlock()
	if gone != nil {
		<-gone
	}
}

// WarmPID is the pid of the session's warm agent, 0 if none (tests).
func (a *acpAgent) WarmPID(sessionID string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if w := a.warm[sessionID]; w != nil {
		return w.proc.Pid()
	}
	return 0
}

func (w *acpWarm) stop() {
	if w.idle != nil {
		w.idle.Stop()
	}
	if ended := w.turnEnded.Load(); ended != 0 {
		time.Sleep(time.Until(time.Unix(0, ended).Add(acpSettle)))
	}
	w.proc.stop()
}

// drop stops w, the session's agent or one that was, and waits for that.
func (a *acpAgent) drop(sessionID string, w *acpWarm) {
	gone := make(chan struct{})
	a.mu.Lock()
	if a.warm[sessionID] == w {
		delete(a.warm, sessionID)
	}
	a.stopping[sessionID] = gone
	a.mu.Unlock()
	w.stop()
	a.mu.Lock()
	if a.stopping[sessionID] == gone {
		delete(a.stopping, sessionID)
	}
	a.mu.Unlock()
	close(gone)
}

func (a *acpAgent) RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	name := a.spec.name
	// The agent started at createSession: this turn waits for that start
	// and takes its agent; a start that failed is tried once more below.
	var w *acpWarm
	for {
		if st, err := a.awaitStart(ctx, turn.SessionID); err != nil {
			return stoppedTurn(ctx, name)
		} else if st != nil {
			for _, ev := range st.takeEvents() {
				emit(ev)
			}
		}
		a.mu.Lock()
		if a.starting[turn.SessionID] == nil {
			break // a.mu held: no start can come between this check and taking the agent
		}
		// A start was registered since (RestartForTools): wait for it
		// too, rather than start a second agent of the session beside it.
		a.mu.Unlock()
	}
	w = a.warm[turn.SessionID]
	var pending []Event
	if w != nil {
		pending, w.pending = w.pending, nil
	}
	if w != nil && w.idle != nil && !w.idle.Stop() {
		// The idle timer fired: its drop is stopping this agent, or is
		// about to. Leave it to that and start another, which loads the
		// session (ResumeID).
		delete(a.warm, turn.SessionID)
		w = nil
	}
	if w != nil {
		w.inTurn = true
	}
	a.mu.Unlock()
	for _, ev := range pending {
		emit(ev)
	}
	if w != nil && closedChan(w.conn.Done()) {
		a.drop(turn.SessionID, w) // it died between turns: start again
		w = nil
	}
	if w != nil && a.spec.toolsAtStart && w.tools != toolsKey(turn.Tools) {
		a.drop(turn.SessionID, w)
		w = nil
		emit(Event{Debug: name + " restarted for the session's new tools (it learns them only when it starts)"})
	}
	if w == nil {
		var err error
		if w, err = a.start(ctx, turn, emit); err != nil {
			if ctx.Err() != nil {
				return stoppedTurn(ctx, name)
			}
			return err
		}
		a.mu.Lock()
		if old := a.warm[turn.SessionID]; old != nil {
			defer old.stop()
		}
		w.inTurn = true
		a.warm[turn.SessionID] = w
		a.mu.Unlock()
	}
	emit(Event{ProviderThreadID: string(w.sessionID)})
	err := a.prompt(ctx, w, turn, emit)
	a.mu.Lock()
	w.inTurn = false
	if a.warm[turn.SessionID] == w {
		sid := turn.SessionID
		w.idle = a.clock(a.idle, func() { a.drop(sid, w) })
	}
	a.mu.Unlock()
	return err
}

// prompt runs one session/prompt on w.
func (a *acpAgent) prompt(ctx context.Context, w *acpWarm, turn *Turn, emit func(Event)) error {
	name := a.spec.name
	t := &acpTurn{emit: emit}
	w.client.begin(t)
	defer w.client.end()
	type result struct {
		resp acp.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	pctx, stopPrompt := context.WithCancel(context.WithoutCancel(ctx))
	defer stopPrompt()
	go func() {
		r, err := w.conn.Prompt(pctx, acp.PromptRequest{SessionId: w.sessionID, Prompt: []acp.ContentBlock{acp.TextBlock(turn.Prompt)}})
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		w.turnEnded.Store(time.Now().UnixNano())
		return a.outcome(w, turn, r.resp, r.err)
	case <-w.conn.Done():
		a.drop(turn.SessionID, w)
		if ctx.Err() != nil {
			return stoppedTurn(ctx, name)
		}
		return a.crashed(w)
	case <-ctx.Done():
	}
	// Cancelled (session ended, deadline, Core stopping): session/cancel,
	// answer what is still asked "cancelled", wait for the stopReason.
	w.client.cancel()
	cctx, cancel := context.WithTimeout(context.Background(), acpCancelWait)
	defer cancel()
	_ = w.conn.Cancel(cctx, acp.CancelNotification{SessionId: w.sessionID})
	select {
	case r := <-done:
		if r.err != nil || a.spec.restartAfterCancel {
			a.drop(turn.SessionID, w)
		}
	case <-w.conn.Done():
		a.drop(turn.SessionID, w)
	case <-cctx.Done():
		emit(Event{Warning: fmt.Sprintf("%s did not answer session/cancel within %s: stopped", name, acpCancelWait)})
		a.drop(turn.SessionID, w)
	}
	return stoppedTurn(ctx, name)
}

// outcome judges a finished session/prompt.
func (a *acpAgent) outcome(w *acpWarm, turn *Turn, resp acp.PromptResponse, err error) error {
	name := a.spec.name
	if err != nil {
		if closedChan(w.conn.Done()) {
			a.drop(turn.SessionID, w)
			return a.crashed(w)
		}
		return acpError(name, "session/prompt", err, nil)
	}
	switch resp.StopReason {
	case acp.StopReasonEndTurn, acp.StopReasonMaxTokens, acp.StopReasonMaxTurnRequests:
		return nil
	case acp.StopReasonRefusal:
		return wire.Errorf(wire.CodeProviderError, "%s refused to answer (stopReason refusal)", name).
			WithDetails(map[string]any{"stopReason": string(resp.StopReason)})
	case acp.StopReasonCancelled:
		// Not cancelled by Pedelec: the agent ended the turn itself
		// (codex after a rejected apply_patch).
		return wire.Errorf(wire.CodeProviderError, "%s ended the turn as cancelled (a rejected tool, say)", name).
			WithDetails(map[string]any{"stopReason": string(resp.StopReason)})
	}
	return nil
}

// crashed is the error of a turn whose agent exited under it.
func (a *acpAgent) crashed(w *acpWarm) error {
	w.proc.stop()
	if err := w.bound.err(w.proc); err != nil {
		return err
	}
	return wire.Errorf(wire.CodeProviderError, "%s: the agent process exited during the turn", a.spec.name).
		WithDetails(w.proc.exitStatus())
}

// acpError is a PROVIDER_ERROR for a failed ACP request, in the agent's
// own words where it gave any.
func acpError(name, method string, err error, details map[string]any) error {
	if details == nil {
		details = map[string]any{}
	}
	details["method"] = method
	var re *acp.RequestError
	if errors.As(err, &re) {
		details["acpCode"] = re.Code
		if re.Data != nil {
			details["acpData"] = re.Data
		}
		return wire.Errorf(wire.CodeProviderError, "%s: %s failed: %s", name, method, re.Message).WithDetails(details)
	}
	return wire.Errorf(wire.CodeProviderError, "%s: %s failed: %v", name, method, err).WithDetails(details)
}

// start spawns the agent, initializes, and opens (or loads) the session.
func (a *acpAgent) start(ctx context.Context, turn *Turn, emit func(Event)) (*acpWarm, error) {
	name := a.spec.name
	path, err := a.program.find()
	if err != nil {
		return nil, wire.Errorf(wire.CodeProviderUnavailable, "%s: %w", name, err)
	}
	args := cliArgs{turn: turn, extra: a.settings.Args, settings: a.settings}
	env := cliEnv(turn.Env, map[string]string{"PWD": turn.WorkDir})
	if a.spec.prepare != nil {
		extra, err := a.spec.prepare(args)
		if err != nil {
			return nil, wire.Errorf(wire.CodeProviderError, "%s: preparing the agent: %v", name, err)
		}
		env = cliEnv(env, extra)
	}
	argv := append(a.spec.args(args), a.settings.Args...)
	env = cliEnv(env, a.settings.Env)
	began := time.Now()
	proc, err := startACPProcess(path, argv, turn.WorkDir, env)
	if err != nil {
		return nil, wire.Errorf(wire.CodeProviderError, "%s: %v", name, err)
	}
	server := ""
	if turn.MCP != nil {
		server = turn.MCP.Name
	}
	client := newACPClient(name, server, a.settings.AllowKinds)
	bound := newACPBound(name, proc.stop, proc.gone) // acp_bound.go
	// The library starts reading the agent's output inside
	// NewClientSideConnection and reads its logger when that output ends,
	// but takes the logger only afterwards (SetLogger): an agent that dies
	// at once raced the two. Its output is held back until the logger is
	// set (acp_gate.go).
	out := newGatedReader(bound.reader(proc.stdout))
	conn := acp.NewClientSideConnection(bound.client(client), bound.writer(proc.stdin), out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	out.open()
	w := &acpWarm{proc: proc, conn: conn, client: client, bound: bound, tools: toolsKey(turn.Tools)}
	fail := func(method string, err error) (*acpWarm, error) {
		// Whether the agent had gone is read before stopping it: after
		// the stop its connection is always done, and every error would
		// read as an exit.
		exited := closedChan(conn.Done())
		proc.stop()
		if err := bound.err(proc); err != nil {
			return nil, err
		}
		if exited {
			return nil, wire.Errorf(wire.CodeProviderError, "%s: the agent exited before it answered %s", name, method).
				WithDetails(proc.exitStatus())
		}
		return nil, acpError(name, method, err, proc.exitStatus())
	}
	call := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, acpDeadline) }

	cx, cancel := call()
	init, err := conn.Initialize(cx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{},
		ClientInfo:         &acp.Implementation{Name: "pedelec", Version: "1"},
	})
	cancel()
	if err != nil {
		return fail("initialize", err)
	}
	initialized := time.Now()
	// What a spare agent started ahead of its session would save (the
	// process and initialize) against what it would not (session/new,
	// which needs the session's directory and MCP server): docs/decisions.md.
	defer func() {
		if w.sessionID != "" {
			emit(Event{Debug: fmt.Sprintf("%s started: initialize after %d ms, session ready %d ms later",
				name, initialized.Sub(began).Milliseconds(), time.Since(initialized).Milliseconds())})
		}
	}()
	mcpServer := turn.MCP
	if a.spec.mcpByEnv {
		mcpServer = mcpReferencingEnv(mcpServer, env)
	}
	servers := acpMCPServers(mcpServer, a.spec.stdioMCP || (turn.MCP != nil && turn.MCP.URL == ""))
	if turn.ResumeID != "" && init.AgentCapabilities.LoadSession {
		if a.spec.beforeLoad != nil {
			if err := a.spec.beforeLoad(envMap(env), turn.ResumeID); err != nil {
				emit(Event{Warning: fmt.Sprintf("%s: preparing session/load: %v", name, err)})
			}
		}
		bound.allowSession(acp.SessionId(turn.ResumeID))
		cx, cancel := call()
		_, err := conn.LoadSession(cx, acp.LoadSessionRequest{SessionId: acp.SessionId(turn.ResumeID), Cwd: turn.WorkDir, McpServers: servers, Meta: a.spec.meta})
		cancel()
		if err == nil {
			w.sessionID = acp.SessionId(turn.ResumeID)
			client.own(w.sessionID)
			return w, a.setMode(ctx, w)
		}
		if closedChan(conn.Done()) {
			return fail("session/load", err)
		}
		// Gemini cannot load a session whose process was killed mid-turn
		// (FACTS-acp §2): the conversation starts over, and the log says so.
		emit(Event{Warning: fmt.Sprintf("%s could not load ACP session %s (%v): started a new one; the agent does not remember earlier turns", name, turn.ResumeID, err)})
	} else if turn.ResumeID != "" {
		emit(Event{Warning: fmt.Sprintf("%s cannot load ACP sessions: started a new one; the agent does not remember earlier turns", name)})
	}
	cx, cancel = call()
	ns, err := conn.NewSession(cx, acp.NewSessionRequest{Cwd: turn.WorkDir, McpServers: servers, Meta: a.spec.meta})
	cancel()
	if err != nil {
		return fail("session/new", err)
	}
	w.sessionID = ns.SessionId
	client.own(ns.SessionId)
	bound.allowSession(ns.SessionId)
	if err := a.setMode(ctx, w); err != nil {
		return nil, err
	}
	return w, nil
}

func (a *acpAgent) setMode(ctx context.Context, w *acpWarm) error {
	if a.spec.mode == "" {
		return nil
	}
	cx, cancel := context.WithTimeout(ctx, acpDeadline)
	defer cancel()
	if _, err := w.conn.SetSessionMode(cx, acp.SetSessionModeRequest{SessionId: w.sessionID, ModeId: acp.SessionModeId(a.spec.mode)}); err != nil {
		w.proc.stop()
		return acpError(a.spec.name, "session/set_mode", err, w.proc.exitStatus())
	}
	return nil
}

// acpMCPServers is session/new's mcpServers for m.
func acpMCPServers(m *MCPServer, stdio bool) []acp.McpServer {
	if m == nil {
		return []acp.McpServer{}
	}
	if stdio && m.Command != "" {
		env := []acp.EnvVariable{}
		for _, kv := range m.Env {
			k, v, _ := cutEnv(kv)
			env = append(env, acp.EnvVariable{Name: k, Value: v})
		}
		args := m.Args
		if args == nil {
			args = []string{}
		}
		return []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: m.Name, Command: m.Command, Args: args, Env: env}}}
	}
	headers := []acp.HttpHeader{}
	keys := make([]string, 0, len(m.Headers))
	for k := range m.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		headers = append(headers, acp.HttpHeader{Name: k, Value: m.Headers[k]})
	}
	return []acp.McpServer{{Http: &acp.McpServerHttpInline{Type: "http", Name: m.Name, Url: m.URL, Headers: headers}}}
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// toolsKey identifies a tool set as an agent is given it: the tools'
// definitions, in order.
func toolsKey(tools []schema.Tool) string {
	data, _ := json.Marshal(tools)
	return string(data)
}
