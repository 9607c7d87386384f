package provider

import (
	"context"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An agent CLI (Codex, Claude Code, ...) is one process per turn: Pedelec
// starts it in the session's working directory with the prompt, reads its
// JSON event lines from stdout, and resumes the next turn by the thread id
// the CLI reported. Everything that is the same for every such CLI is
// cliAgent below; what differs is a cliSpec, one small value per CLI.
//
// Adding an agent CLI is one new Go file, <name>.go, with its spec, its
// Register call and its stream parser (the built-in ones keep the parser
// beside it, in <name>_stream.go), plus its recordings under testdata and
// its tests. No other source file names it:
//
//	// NewGemini is the Gemini CLI provider: `gemini -p ...`.
//	func NewGemini(s Settings) Provider { return newCLIAgent(geminiSpec, s) }
//
//	func init() {
//		Register(Spec{Name: geminiSpec.name, Title: "Gemini CLI", Rank: 30, New: NewGemini})
//	}
//
//	var geminiSpec = cliSpec{
//		name:        "gemini",                 // createSession({provider}), [providers.gemini]
//		description: "Gemini CLI (gemini -p)", // list_providers
//		command:     "gemini",                 // found on PATH ...
//		envVar:      "PEDELEC_GEMINI_BIN",     // ... unless this or Settings.Executable names it
//		allow:       []string{...},            // only `pedelec` commands run unasked
//		args:        geminiArgs,               // first and resumed turn
//		stopSignal:  syscall.SIGTERM, grace: 3 * time.Second,
//		newStream:   func() cliStream { return &geminiStream{} },
//	}
//
// Register (registry.go) is what makes it a provider: the settings file
// takes its [providers.<name>] section, list_providers and the default
// order place it by Rank, and `go generate ./runtime/wire` writes it into
// the SDK's ProviderCode and display names (sdk/src/providers.gen.ts, then
// `npm run build` in sdk/ for the bundle Core serves) and docs/providers.md's
// table. The tests are recordings of the real CLI under
// testdata/<name>-<version>/ replayed by <name>_stream_test.go and a
// <name>_test.go that runs the real CLI against e2e/modelserver (skipped
// under -short); docs/providers.md gets a section on how it runs, and the
// protocol golden e2e/testdata/conformance/refusals.txt, which lists the
// known names, is re-recorded (go test ./e2e -run Conformance -update).
// TestProviderNamedOnlyInItsFile, runtime/config's TestNoProviderNamed and
// gencodes' TestGeneratedFilesAreFresh fail if a provider is named, or
// listed by hand, anywhere else.
//
// Core fills Turn.Model from createSession or Settings.DefaultModel (Check
// reports it); an args function uses turn.Model as it is and never falls
// back on its own.

// cliSpec describes one agent CLI to cliAgent.
type cliSpec struct {
	// name is the provider code (createSession({provider}), messages).
	name string
	// description is shown by list_providers and `pedelec providers`.
	description string
	// command is the program's name on PATH; envVar (PEDELEC_<NAME>_BIN)
	// and Settings.Executable override it, in that order of precedence:
	// Settings.Executable, envVar, PATH.
	command string
	envVar  string
	// native maps a found path to the program to run (Codex: the npm Node
	// wrapper to its native binary, so that signals reach the agent). Nil
	// runs the path itself. Its version is `<program> --version`.
	native func(path string) (string, error)
	// npmPackage, if set, is the npm package the program comes from: its
	// version is read from the package.json above the program instead of
	// running `--version` (a Node CLI takes seconds to start).
	npmPackage string
	// allow are the arguments that let the agent run `pedelec` and
	// `pedelec-cli` commands without asking and nothing that would need
	// asking: nobody is there to approve (Claude: --allowedTools rules;
	// Codex: a sandbox that reaches loopback). args places them.
	allow []string
	// args is the command line of a turn: a first turn when
	// a.turn.ResumeID is empty, else one that resumes that thread. It must
	// include a.allow and the user's a.extra (Settings.Args).
	args func(a cliArgs) []string
	// promptInArgs says args put a.turn.Prompt on the command line; by
	// default the prompt goes on stdin (no argv length limit, not in `ps`).
	promptInArgs bool
	// stopSignal is sent to the process group when the turn is cancelled;
	// after grace the group is killed.
	stopSignal syscall.Signal
	grace      time.Duration
	// newStream is a fresh parser for one turn's stdout.
	newStream func() cliStream
	// prepare, if set, runs before each turn: it writes what the CLI needs
	// into the session's own directory (a config file, a policy) and
	// returns environment entries for it. Settings.Env overrides them, so
	// a user can point a CLI elsewhere on purpose.
	prepare func(a cliArgs) (map[string]string, error)
	// shellLimit is how long the CLI's shell tool lets one command run
	// (call_budget.go); limitVar, if set, is the environment variable
	// that changes it. Zero: tool-call gets no budget.
	shellLimit time.Duration
	limitVar   string
	// endpoint, if set, finds the model server the CLI is pointed at (from
	// its arguments and environment), for the early probe (cli_early.go);
	// else Settings.BaseURL.
	endpoint func(a cliArgs, env map[string]string) string
}

// cliArgs is what a cliSpec's args function builds a command line from.
type cliArgs struct {
	turn  *Turn
	allow []string // cliSpec.allow
	extra []string // Settings.Args, added to every invocation
	// settings are the user's settings of this provider (BaseURL, APIKey
	// and Env point a CLI at a model endpoint).
	settings Settings
}

// cliStream turns one turn's stdout lines into events and judges the turn.
type cliStream interface {
	// handle reads one stdout line (decode it with decodeLenient; ignore
	// what it does not know: CLIs add event types between versions) and
	// emits what it means: chat text, the thread id to resume with
	// (as soon as the CLI reports it), warnings.
	handle(line []byte, emit func(Event))
	// outcome is the turn's result once the process exited: nil for a
	// completed turn, else a PROVIDER_ERROR in the CLI's own words (or
	// its stderr tail, exitDetails) that says when resumeID was unknown.
	outcome(run cliRun, resumeID string) error
}

// cliAgent is the Provider for any agent CLI described by a cliSpec.
type cliAgent struct {
	spec     cliSpec
	settings Settings
	program  *cliProgram
	probes   cliProbes // the early starts' probes (cli_early.go)
}

func newCLIAgent(spec cliSpec, s Settings) *cliAgent {
	return &cliAgent{spec: spec, settings: s, program: &cliProgram{
		name: spec.name, command: spec.command, envVar: spec.envVar,
		explicit: s.Executable, env: s.Env, native: spec.native, npmPackage: spec.npmPackage,
	}}
}

func (c *cliAgent) Name() string { return c.spec.name }

func (c *cliAgent) Check(ctx context.Context) wire.ProviderInfo {
	info := c.program.check(ctx, c.spec.description)
	info.DefaultModel = c.settings.DefaultModel
	return info
}

// args is the command line of turn.
func (c *cliAgent) args(turn *Turn) []string {
	return c.spec.args(c.cliArgs(turn))
}

func (c *cliAgent) cliArgs(turn *Turn) cliArgs {
	return cliArgs{turn: turn, allow: c.spec.allow, extra: c.settings.Args, settings: c.settings}
}

func (c *cliAgent) RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	name := c.spec.name
	c.CloseSession(turn.SessionID) // the createSession probe, if it still runs (cli_early.go)
	path, err := c.program.find()
	if err != nil {
		return wire.Errorf(wire.CodeProviderUnavailable, "%s: %w", name, err)
	}
	stdin := turn.Prompt
	if c.spec.promptInArgs {
		stdin = ""
	}
	// PWD as the working directory: the inherited one names Core's own
	// directory, and opencode runs its agent's commands in $PWD.
	env := cliEnv(turn.Env, map[string]string{"PWD": turn.WorkDir})
	if c.spec.prepare != nil {
		extra, err := c.spec.prepare(c.cliArgs(turn))
		if err != nil {
			return wire.Errorf(wire.CodeProviderError, "%s: preparing the turn: %v", name, err)
		}
		env = cliEnv(env, extra)
	}
	env = cliEnv(env, budgetEnv(c.spec.shellLimit, c.spec.limitVar, envMap(env), c.settings.Env))
	stream := c.spec.newStream()
	run := runCLI(ctx, ProcessSpec{
		Path:       path,
		Args:       c.args(turn),
		Dir:        turn.WorkDir,
		Env:        cliEnv(env, c.settings.Env),
		Stdin:      stdin,
		StopSignal: c.spec.stopSignal,
		Grace:      c.spec.grace,
	}, func(line []byte) { stream.handle(line, emit) })
	if ctx.Err() != nil {
		return stoppedTurn(ctx, name)
	}
	if run.err != nil && run.exitCode == -1 {
		return wire.Errorf(wire.CodeProviderError, "%s: %w", name, run.err)
	}
	return stream.outcome(run, turn.ResumeID)
}
