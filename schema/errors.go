package schema

import (
	"fmt"
	"strings"
)

// schema is a bottom layer: it does not import runtime/wire. Its errors
// carry their wire code themselves (ErrorCode, ErrorDetails), and
// wire.AsError turns them into {code, message, details} at the edge. The
// codes are wire's; a test in runtime/wire checks that they stay known.
const (
	CodeInvalidInput    = "INVALID_INPUT"
	CodeToolArgsInvalid = "TOOL_ARGS_INVALID"
)

// Error is a schema failure with its wire code.
type Error struct {
	code    string
	message string
	details map[string]any
}

func (e *Error) Error() string     { return e.message }
func (e *Error) ErrorCode() string { return e.code }
func (e *Error) ErrorDetails() any { return e.details }

// InvalidInput is the INVALID_INPUT error for a manifest that breaks the
// rules: the message reads on its own (a developer sees it in the
// console), and details carries every problem for tools.
func InvalidInput(problems []Problem) error {
	if problems == nil {
		problems = []Problem{}
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.Path + ": " + p.Message
	}
	msg := fmt.Sprintf("%s in the tool definitions: %s", Plural(len(problems), "problem"), strings.Join(parts, "; "))
	return &Error{code: CodeInvalidInput, message: msg, details: map[string]any{"problems": problems}}
}

// ArgsInvalid is the TOOL_ARGS_INVALID error an agent gets for a call whose
// arguments miss the schema: every violation in the message itself (the
// agent may see only the message) and the way to read the full schema
// before retrying.
func ArgsInvalid(tool string, v []Violation) error {
	if v == nil {
		v = []Violation{}
	}
	msg := ArgsInvalidMessage(tool, v, fmt.Sprintf("run `pedelec tool-spec %s` to see its full argument schema", tool))
	return &Error{code: CodeToolArgsInvalid, message: msg, details: map[string]any{"tool": tool, "violations": v}}
}

// ArgsInvalidMessage is TOOL_ARGS_INVALID's message, with where the caller
// reads the full schema: `pedelec tool-spec` for an agent in a session, the
// tool's inputSchema for an MCP client, which cannot run that command.
func ArgsInvalidMessage(tool string, v []Violation, seeSchema string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = x.Path + ": " + x.Message
	}
	return fmt.Sprintf("the arguments for %s are invalid (%s): %s. Fix them and call %s again; %s.",
		tool, problemCount(len(v)), strings.Join(parts, "; "), tool, seeSchema)
}

// problemCount is "n problems", or "at least n" when the check stopped at
// MaxViolations.
func problemCount(n int) string {
	if n >= MaxViolations {
		return "at least " + Plural(n, "problem")
	}
	return Plural(n, "problem")
}

// Plural is "1 unit" or "n units", for messages here and in the CLI.
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
