package commands

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes, decided here and nowhere else.
const (
	ExitOK     = 0 // success; for tool-call, any result the app returned, domain errors included
	ExitFailed = 1 // the thing checked or called failed (invalid manifest, Pedelec error)
	ExitUsage  = 2 // usage error or unreadable input
)

// usageError marks a bad command line or unreadable input (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failedError marks a completed check or call whose answer is "no" (exit 1).
// Its output has already been printed, so nothing more is written.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

func failed(msg string) error { return &failedError{msg: msg} }

// exitCode maps a command's error to the process exit code, printing what a
// person needs on stderr.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var fe *failedError
	if errors.As(err, &fe) {
		return ExitFailed
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "pedelec: "+ue.msg)
		return ExitUsage
	}
	// urfave/cli's own usage problems (unknown flag, missing value) arrive as
	// plain errors from flag parsing.
	msg := err.Error()
	if strings.HasPrefix(msg, "flag provided but not defined") || strings.Contains(msg, "flag needs an argument") ||
		strings.HasPrefix(msg, "invalid value") || strings.HasPrefix(msg, "No help topic") || strings.Contains(msg, "Required flag") {
		fmt.Fprintln(stderr, "pedelec: "+msg)
		return ExitUsage
	}
	fmt.Fprintln(stderr, "pedelec: "+msg)
	return ExitFailed
}
