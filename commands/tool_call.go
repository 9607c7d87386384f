package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

func toolCallCommand() *cli.Command {
	return &cli.Command{
		Name:      "tool-call",
		Usage:     "Call one of the page's tools and print its result as JSON",
		ArgsUsage: "<tool> '<json_args>' | <tool> - (arguments on stdin) | --wait <handle>",
		Description: `Run by the agent inside a Pedelec session. Validates the arguments against the
tool's schema in Core, hands the call to the web page, waits for the page's
handler, and prints exactly one JSON object on stdout:

   {"ok":true,"result":<the handler's result>}                    exit 0
   {"ok":false,"error":{"code":"...","message":"...","details":...}}  exit 1

A call still running when this command's time is nearly spent (the agent's
shell would kill it: ` + "$" + wire.EnvCallBudgetMs + `, set by Core for each agent) exits 3
with TOOL_CALL_PENDING: the call goes on in Core, and details.next is the
command that waits for its result, 'pedelec tool-call --wait <handle>' (which
may exit 3 again with a new wait). Do not call the tool again meanwhile. The
handler's progress reports go to stderr, one line each; stdout stays the one
JSON object.

Exit 2 is a usage error (fix the command line); exit 75 is CORE_UNREACHABLE
(Core is down or restarting: retry the same command in a few seconds); exit
130 is an interrupted call (TOOL_CALL_CANCELLED).

A result larger than Core's inline limit (serve --max-inline-result-bytes) is
written to a file in the session's assets instead, and the answer says where:

   {"ok":true,"resultFile":{"path":"...","sizeBytes":...,"shape":...,"preview":"..."}}  exit 0

Read the part you need from that file. A page that refuses the call answers
TOOL_REFUSED (exit 1); details.retryable says whether the same call may
succeed later.

A result may itself be the application's domain error ({"error":{...}}): it is
still a result (exit 0). On TOOL_ARGS_INVALID, details.violations lists every
problem with its path, what was expected and what was given: fix them and call
once more. Use 'tool-spec <tool>' to see the full argument schema.

The arguments are one JSON object in single quotes ('{}' when the tool takes
none, or omit them). Arguments on the command line are visible to every user
of the machine through ps; for secrets or personal data pass '-' and write the
JSON on stdin instead:

   pedelec tool-call <tool> - <<'JSON'
   {"key":"value"}
   JSON

Core and the session's secret
come from the environment Core gives the agent; the session from --thread-id
or PEDELEC_THREAD_ID.`,
		Flags: []cli.Flag{threadIDFlag(),
			&cli.StringFlag{Name: "wait", Usage: "wait for the call handed over with this handle (TOOL_CALL_PENDING's details.next)", EnvVars: []string{"PEDELEC_TOOL_CALL_WAIT"}},
			&cli.Int64Flag{Name: "budget-ms", Usage: "hand the call over (exit 3) after this many ms; 0 waits as long as the call takes", EnvVars: []string{wire.EnvCallBudgetMs}},
			&cli.BoolFlag{Name: "quiet", Usage: "print no progress lines on stderr", EnvVars: []string{"PEDELEC_QUIET_PROGRESS"}},
		},
		Action:       interruptible(runToolCall),
		OnUsageError: markAgentUsage,
	}
}

func runToolCall(c *cli.Context) error {
	out := c.App.Writer
	if handle := c.String("wait"); handle != "" {
		return runToolWait(c, handle)
	}
	if c.NArg() < 1 || c.NArg() > 2 {
		return printAgentUsage(out, "usage: tool-call <tool> '<json_args>'", map[string]any{"args": c.Args().Slice()})
	}
	tool := c.Args().Get(0)
	raw := c.Args().Get(1)
	if raw == "-" {
		data, err := io.ReadAll(c.App.Reader)
		if err != nil {
			return printAgentUsage(out, "read arguments from stdin: "+err.Error(), nil)
		}
		raw = string(data)
	}
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if err := checkJSONArgs(raw); err != nil {
		werr := wire.AsError(err)
		agentclient.Print(out, wire.AgentResult{Error: werr})
		return &usageError{msg: werr.Message, printed: true}
	}
	threadID, client, err := agentSetup(c)
	if err != nil {
		return err
	}
	res := client.ToolCallWith(c.Context, threadID, tool, json.RawMessage(raw), callOptions(c))
	agentclient.Print(out, res)
	return agentOutcome(res)
}

// runToolWait is `tool-call --wait <handle>`: it waits for a call an
// earlier tool-call handed over (TOOL_CALL_PENDING), within the same
// budget, and prints its result as that tool-call would have.
func runToolWait(c *cli.Context, handle string) error {
	if c.NArg() > 0 {
		return printAgentUsage(c.App.Writer, "usage: tool-call --wait <handle> (no tool or arguments: the call has them)", map[string]any{"args": c.Args().Slice()})
	}
	threadID, client, err := agentSetup(c)
	if err != nil {
		return err
	}
	res := client.ToolWait(c.Context, threadID, handle, callOptions(c))
	agentclient.Print(c.App.Writer, res)
	return agentOutcome(res)
}

// callOptions are the budget (--budget-ms, or what Core put in the
// environment for this agent's shell) and the progress lines on stderr.
func callOptions(c *cli.Context) agentclient.CallOptions {
	o := agentclient.CallOptions{Budget: time.Duration(c.Int64("budget-ms")) * time.Millisecond}
	if !c.Bool("quiet") {
		errw := c.App.ErrWriter
		o.Progress = func(p wire.Progress) { fmt.Fprintln(errw, progressLine(p)) }
	}
	return o
}

// progressLine is one progress report as the agent reads it on stderr.
func progressLine(p wire.Progress) string {
	line := "pedelec: progress " + strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		line += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		line += ": " + strings.Join(strings.Fields(printable(p.Message)), " ") // one line, whatever the handler wrote
	}
	return line
}

// printable drops what a terminal would act on rather than show: control
// characters (ESC starts sequences that set the clipboard or clear the
// screen) and bidirectional formatting characters. The message is the
// page's text, and stderr may be the user's terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, s)
}

// agentOutcome is the exit of tool-call and tool-spec once the answer is
// printed: CORE_UNREACHABLE has a status of its own, the one failure an
// agent should retry unchanged.
func agentOutcome(res wire.AgentResult) error {
	switch {
	case res.OK:
		return nil
	case res.Error.Code == wire.CodeCoreUnreachable:
		return &unreachableError{msg: res.Error.Message}
	case res.Error.Code == wire.CodeCoreNotAuthentic:
		return &notAuthenticError{msg: res.Error.Message}
	case res.Error.Code == wire.CodeToolCallPending:
		return &pendingError{msg: res.Error.Message}
	}
	return failed(res.Error.Message)
}

// checkJSONArgs reports unparseable arguments with the parser's message and
// where in the text it stopped. It only scans them: Core decodes them, once,
// against the tool's schema, and the page gets them as they are written.
func checkJSONArgs(raw string) error {
	if json.Valid([]byte(raw)) {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	var v json.RawMessage // read, not built: the reader's errors say where
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			off := dec.InputOffset()
			line, col := lineCol(raw, off)
			return wire.Errorf(wire.CodeToolArgsInvalid, "arguments have text after the JSON value at line %d, column %d: pass one JSON object", line, col).
				WithDetails(map[string]any{"line": line, "column": col, "offset": off})
		}
		return nil
	}
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // Offset counts the offending byte; point at it
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		off = int64(len(raw))
		err = errors.New("unexpected end of JSON input")
	}
	line, col := lineCol(raw, off)
	return wire.Errorf(wire.CodeToolArgsInvalid, "arguments are not valid JSON: %v (line %d, column %d)", err, line, col).
		WithDetails(map[string]any{"line": line, "column": col, "offset": off, "parser": err.Error()})
}

// lineCol turns a byte offset into 1-based line and column.
func lineCol(s string, off int64) (int, int) {
	if off > int64(len(s)) {
		off = int64(len(s))
	}
	before := s[:off]
	line := strings.Count(before, "\n") + 1
	col := int(off) - strings.LastIndex(before, "\n")
	return line, col
}

// agentSetup finds the session id and the client from flags and environment.
func agentSetup(c *cli.Context) (string, *agentclient.Client, error) {
	threadID := c.String("thread-id")
	if threadID == "" {
		for _, parent := range c.Lineage() {
			if v := parent.String("thread-id"); v != "" {
				threadID = v
				break
			}
		}
	}
	client, err := agentclient.FromEnv(os.Getenv, defaultStateDir())
	if threadID == "" || err != nil {
		werr := notInSession(threadID == "", err)
		agentclient.Print(c.App.Writer, wire.AgentResult{Error: werr})
		return "", nil, &usageError{msg: werr.Message, printed: true}
	}
	return threadID, client, nil
}

// notInSession is the one NOT_IN_SESSION error for everything a command
// run outside a session lacks: the thread id and Core's environment are
// named together, so the first fix does not lead to a second error.
func notInSession(noThread bool, envErr error) *wire.Error {
	var missing []string
	if noThread {
		missing = append(missing, "--thread-id (or "+wire.EnvThreadID+")")
	}
	if envErr != nil {
		werr := wire.AsError(envErr)
		if werr.Code != wire.CodeNotInSession {
			return werr
		}
		for _, name := range []string{wire.EnvCoreURL, wire.EnvSecret} {
			if os.Getenv(name) == "" {
				missing = append(missing, name)
			}
		}
	}
	return wire.Errorf(wire.CodeNotInSession,
		"not inside a Pedelec session: missing %s. Core sets %s, %s and %s in the environment of the agent it starts for a session: run this from that agent's shell. "+
			"By hand, take them from that environment: %s is Core's address (such as http://127.0.0.1:7077), and Core's console (<core>/console/) shows each call as a command line with its --thread-id",
		strings.Join(missing, ", "), wire.EnvThreadID, wire.EnvCoreURL, wire.EnvSecret, wire.EnvCoreURL).
		WithDetails(map[string]any{"missing": missing})
}

func printAgentUsage(out io.Writer, msg string, details any) error {
	werr := wire.Errorf(wire.CodeInvalidInput, "%s", msg)
	if details != nil {
		werr.Details = details
	}
	agentclient.Print(out, wire.AgentResult{Error: werr})
	return &usageError{msg: msg, printed: true}
}
