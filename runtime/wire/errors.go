package wire

import (
	"errors"
	"fmt"
)

// Error is the one failure shape Pedelec puts on any wire: the SDK's
// WebSocket, the agent endpoint, the CLI's stdout. Code is stable and
// upper-snake; Message is for a person or a model; Details is JSON data.
//
// Inside the process errors travel as plain `error`s, wrapped with %w;
// AsError turns one into this shape only where it leaves the process.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
	// cause is the error a %w in Errorf's format wrapped, for errors.Is
	// and errors.As; its text is already part of Message.
	cause error
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap is the error Errorf's %w wrapped, if any.
func (e *Error) Unwrap() error { return e.cause }

// Errorf builds an *Error with a formatted message; a %w verb wraps its
// error (as fmt.Errorf does) so the cause stays inspectable.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), cause: errors.Unwrap(err)}
}

// WithDetails returns e with Details set, for chaining at construction.
func (e *Error) WithDetails(details any) *Error {
	e.Details = details
	return e
}

// AsError converts any error into the wire shape. An *Error anywhere in the
// chain keeps its code; anything else is an INTERNAL error with its text, so
// nothing is lost on the way to the wire. This is the one place that decides
// how a Go error looks to a client.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	var coded CodedError
	if errors.As(err, &coded) {
		return &Error{Code: Code(coded.ErrorCode()), Message: coded.Error(), Details: coded.ErrorDetails()}
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// CodedError is an error that knows its wire code without importing this
// package: packages below it (schema) return these, and AsError gives them
// the wire shape. Error() is the message, without the code. ErrorCode is a
// string because those packages cannot name Code; it must be one of Codes
// (a test of schema's codes checks that).
type CodedError interface {
	error
	ErrorCode() string
	ErrorDetails() any
}
