package commands

import (
	"errors"
	"fmt"
	"io"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// The exit statuses themselves, and what each means, are wire.ExitStatuses
// (runtime/wire/exit.go): docs/errors.md's table is generated from there.
// Here each kind of failure is mapped to its status.

// usageError marks a bad command line or unreadable input (exit 2).
// printed is set when the command has already said so: tool-call and
// tool-spec answer with one JSON object on stdout, and repeating its
// sentence on stderr made every such error show twice on a terminal.
type usageError struct {
	msg     string
	printed bool
}

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failedError marks a completed check or call whose answer is "no" (exit 1).
// Its output has already been printed, so nothing more is written.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

func failed(msg string) error { return &failedError{msg: msg} }

// unreachableError marks an agent command that could not reach Core: the
// one failure worth retrying as it is (exit 75). Its JSON is already on
// stdout.
type unreachableError struct{ msg string }

func (e *unreachableError) Error() string { return e.msg }

// notAuthenticError marks a command that refused what answers at Core's
// address (CORE_NOT_AUTHENTIC, exit 76): nothing secret was sent to it.
// Its message is already printed (on stdout as JSON for tool-call).
type notAuthenticError struct{ msg string }

func (e *notAuthenticError) Error() string { return e.msg }

// pendingError marks a tool-call whose call is still running in Core
// (TOOL_CALL_PENDING, exit 3): its JSON, with the command that waits for
// it, is already on stdout.
type pendingError struct{ msg string }

func (e *pendingError) Error() string { return e.msg }

// interruptedError marks a command a signal stopped (exit 128 + signal);
// err is what the command returned as it stopped, already reported.
type interruptedError struct {
	status int
	err    error
}

func (e *interruptedError) Error() string { return fmt.Sprintf("interrupted (exit %d)", e.status) }

// markUsage is every command's OnUsageError: urfave/cli calls it with the
// flag package's parse errors (unknown flag, missing or invalid value), so
// they are told apart by where they come from, not by their text.
func markUsage(c *cli.Context, err error, _ bool) error {
	name := c.App.Name
	if c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return &usageError{msg: fmt.Sprintf("%v (see '%s --help')", err, name)}
}

// markAgentUsage is markUsage for tool-call and tool-spec, whose stdout is
// always one JSON object, a bad flag's included.
func markAgentUsage(c *cli.Context, err error, sub bool) error {
	return printAgentUsage(c.App.Writer, markUsage(c, err, sub).Error(), nil)
}

// onUsageErrorEverywhere gives every command markUsage unless it has its
// own: urfave/cli consults only the command whose flags failed to parse.
func onUsageErrorEverywhere(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = markUsage
		}
		onUsageErrorEverywhere(c.Subcommands)
	}
}

// exitCode maps a command's error to the process exit status, printing what
// a person needs on stderr.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return wire.ExitOK
	}
	var ie *interruptedError
	var fe *failedError
	var re *unreachableError
	var pe *pendingError
	var ne *notAuthenticError
	var we *wire.Error
	var ue *usageError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ie):
		return ie.status
	case errors.As(err, &fe):
		return wire.ExitFailed
	case errors.As(err, &re):
		return wire.ExitCoreUnreachable
	case errors.As(err, &pe):
		return wire.ExitPending
	case errors.As(err, &ne):
		return wire.ExitCoreNotAuthentic
	case errors.As(err, &we) && we.Code == wire.CodeCoreNotAuthentic:
		fmt.Fprintln(stderr, "pedelec: "+we.Message)
		return wire.ExitCoreNotAuthentic
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintln(stderr, "pedelec: "+ue.msg)
		}
		return wire.ExitUsage
	case errors.As(err, &ec):
		// Our commands never return cli.Exit; the one urfave/cli returns
		// itself is help's "No help topic for 'x'" (a mistyped command),
		// with its own status 3, which is ours for usage.
		fmt.Fprintln(stderr, "pedelec: "+err.Error())
		return wire.ExitUsage
	}
	fmt.Fprintln(stderr, "pedelec: "+err.Error())
	return wire.ExitFailed
}
