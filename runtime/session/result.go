package session

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// How the page's answer to a call is accepted (issue 26): a result, which
// Core checks against the tool's outputSchema when it declares one, or a
// refusal, which reaches the agent as TOOL_REFUSED in one documented shape.

// SubmitResult settles one pending call with the page's answer: a result
// (with, maybe, its MCP content blocks) or a refusal; or says why the
// call is not pending. The result and the blocks are values of the page's
// decoded frame, so they are JSON already (or absent); without an
// outputSchema Core does not look inside the result and hands it on as it
// is. The blocks are checked (mcp_content.go) and go to MCP clients only.
//
// A result that breaks the outputSchema, or blocks an MCP client could
// not be given, settle the call too: the agent gets TOOL_RESULT_INVALID
// (its call failed, the page is at fault) and so does the page, as this
// request's error, for its onError.
func (s *Session) SubmitResult(a wire.SubmitToolResultParams) error {
	toolRequestID, result, refusal := a.ToolRequestID, a.Result, a.Refusal
	switch {
	case refusal != nil && len(a.MCPContent) > 0:
		return wire.Errorf(wire.CodeInvalidInput, "params.mcpContent goes with a result, not with a refusal").
			WithDetails(map[string]any{"toolRequestId": toolRequestID, "path": "mcpContent"})
	case refusal != nil:
		if err := checkRefusal(toolRequestID, refusal); err != nil {
			return err
		}
	case len(result) == 0:
		return wire.Errorf(wire.CodeInvalidInput, "result must be a JSON value").WithDetails(map[string]any{"toolRequestId": toolRequestID})
	}
	s.mu.Lock()
	call, ok := s.calls.get(toolRequestID)
	s.mu.Unlock()
	if !ok {
		return s.notPendingError(toolRequestID)
	}
	out, pageErr := s.judgeAnswer(call, result, a.MCPContent, refusal)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.calls.get(toolRequestID); !ok { // settled while it was checked
		return s.notPendingErrorLocked(toolRequestID)
	}
	s.settleLocked(call, out, wire.OutcomeResult)
	return pageErr
}

// judgeAnswer is what the agent gets for the page's answer, and the error
// the page gets back (nil when the answer is fine). It runs without the
// session's lock: checking a large result against a schema takes time.
func (s *Session) judgeAnswer(call *pendingCall, result, content json.RawMessage, refusal *wire.Refusal) (callOutcome, error) {
	if refusal != nil {
		return callOutcome{err: refusedError(call, refusal)}, nil
	}
	if content != nil {
		if p := checkMCPContent(content); p != nil {
			werr := mcpContentInvalid(call, p)
			return callOutcome{err: werr}, werr
		}
	}
	// The definition the call started with: update_tools during the call
	// does not change how its result is judged.
	def := call.def
	if def == nil || !def.HasOutputSchema() {
		return callOutcome{result: result, content: content}, nil
	}
	v := def.ValidateResult(result)
	if len(v) == 0 {
		return callOutcome{result: result, content: content}, nil
	}
	werr := wire.AsError(schema.ResultInvalid(call.tool, v))
	werr.Details = map[string]any{"tool": call.tool, "toolRequestId": call.id, "violations": schema.FirstResultViolations(v), "violationCount": len(v)}
	return callOutcome{err: werr}, werr
}

func (s *Session) notPendingError(toolRequestID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notPendingErrorLocked(toolRequestID)
}

func (s *Session) notPendingErrorLocked(toolRequestID string) error {
	reason := s.calls.settled.reason(toolRequestID)
	return wire.Errorf(wire.CodeToolRequestNotPending, "tool request %s: %s", toolRequestID, notPendingMessage(reason)).
		WithDetails(map[string]any{"toolRequestId": toolRequestID, "reason": reason})
}

// refusalCode is the shape of a page's own refusal code: upper-snake, as
// Pedelec's codes are, so an agent can tell it is a code.
var refusalCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// maxRefusalMessage bounds a refusal's message: a reason, not a document.
const maxRefusalMessage = 2000

func checkRefusal(toolRequestID string, r *wire.Refusal) error {
	bad := func(field, format string, args ...any) error {
		return wire.Errorf(wire.CodeInvalidInput, "params.refusal.%s: %s", field, fmt.Sprintf(format, args...)).
			WithDetails(map[string]any{"toolRequestId": toolRequestID, "path": "refusal." + field})
	}
	switch {
	case !refusalCode.MatchString(r.Code):
		return bad("code", "must be an upper-snake code such as \"OUT_OF_STOCK\" (A-Z, 0-9, _; at most 64); got %q", r.Code)
	case strings.TrimSpace(r.Message) == "":
		return bad("message", "is empty; say why the call was refused, for the agent to act on")
	case utf8.RuneCountInString(r.Message) > maxRefusalMessage:
		return bad("message", "is %d characters; at most %d", utf8.RuneCountInString(r.Message), maxRefusalMessage)
	}
	return nil
}

// refusedError is TOOL_REFUSED: one shape for every refusal, whose
// message already says the next move (retry later, or stop and tell the
// user), since an agent may read nothing else.
func refusedError(call *pendingCall, r *wire.Refusal) *wire.Error {
	next := fmt.Sprintf("Retrying will not help: do not call %s again for this; tell the user why it was refused.", call.tool)
	if r.Retryable {
		next = "The same call may succeed later: retry it once, after the condition the reason names has changed (or in a little while); if it is refused again, tell the user."
	}
	return wire.Errorf(wire.CodeToolRefused, "the page refused the call to %s (%s): %s %s", call.tool, r.Code, strings.TrimSpace(r.Message), next).
		WithDetails(map[string]any{"tool": call.tool, "toolRequestId": call.id, "reason": r.Code, "retryable": r.Retryable})
}
