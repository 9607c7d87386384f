package session

import (
	"context"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/callprogress"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// One call pipeline. However a call arrives (`tool-call`, `tool-call
// --wait`, Core's /mcp, a session's own MCP endpoint, an ACP agent through
// that endpoint, an in-process provider), it enters the broker through
// Session.Call, which looks the tool's definition up once and judges the
// call by that definition to the end: the arguments, whether to ask for
// consent, the deadline, the outputSchema check of the page's answer,
// whether a large result becomes a file, and whether the answer is
// marked untrusted. A page's update_tools during the call changes none of
// these for it. The transports keep only how they render the answer.

// Audience is who reads a call's answer, which decides its form.
type Audience int

const (
	// ForAgent: an agent's shell (`pedelec tool-call`). A result over
	// the inline limit becomes a file (result_file.go).
	ForAgent Audience = iota
	// ForMCP: an MCP client. As ForAgent, but a tool with an
	// outputSchema answers inline: MCP clients check a result's
	// structuredContent against the schema they were given, so a link in
	// its place would fail the call in the client.
	ForMCP
	// ForModel: an in-process provider's model, which reads the result
	// inline, whatever its size.
	ForModel
)

// CallRequest is one call as it enters the broker.
type CallRequest struct {
	Tool string
	Args json.RawMessage
	For  Audience
	// Progress, when set, gets the handler's progress while the call
	// runs (at most four reports a second, the latest winning), and none
	// after the answer.
	Progress func(wire.Progress)
}

// Call runs one tool call through the broker and answers it for
// req.For: the result (inline or as a file), marked untrusted when the
// tool's definition at the call's start says so, or the error.
func (s *Session) Call(ctx context.Context, req CallRequest) wire.AgentResult {
	w := &callWatch{box: callprogress.New()}
	if req.Progress == nil {
		return s.call(ctx, req, w)
	}
	pumpCtx, stop := context.WithCancel(ctx)
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		callprogress.Pump(pumpCtx, w.box, callprogress.Every, req.Progress)
	}()
	out := s.call(ctx, req, w)
	stop()
	<-pumped // no report after the answer
	return out
}

// call is Call with the call's progress going to w.box and its id and
// timeout to w (a hand-over names them).
func (s *Session) call(ctx context.Context, req CallRequest, w *callWatch) wire.AgentResult {
	def, ok := s.tools().Tool(req.Tool)
	if !ok {
		return wire.AgentResult{Error: wire.AsError(s.ToolNotFound(req.Tool))}
	}
	return s.render(def, req.For, s.broker(ctx, def, req.Args, w))
}

// render is the answer to one call for its audience, by the definition
// the call started with. The page's MCP content blocks go to an MCP
// client alone, and inline: they are what the page chose to show it.
func (s *Session) render(def *schema.CompiledTool, to Audience, got callOutcome) wire.AgentResult {
	if got.err != nil {
		return wire.AgentResult{Error: wire.AsError(got.err)}
	}
	var out wire.AgentResult
	switch {
	case to == ForMCP && got.content != nil:
		out = wire.AgentResult{OK: true, MCPContent: got.content, Result: got.result}
	case to == ForModel, to == ForMCP && def.HasOutputSchema():
		out = wire.AgentResult{OK: true, Result: got.result}
	default:
		out = s.Answer(def.Def().Name, got.result, nil)
	}
	out.UntrustedContent = def.Def().UntrustedContent()
	return out
}

// CallTool is Call for an in-process provider, whose model reads the
// result as the tool's output: an untrusted result carries its mark
// inside it, as tool-call prints it.
func (s *Session) CallTool(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	out := s.Call(ctx, CallRequest{Tool: tool, Args: args, For: ForModel})
	if out.Error != nil {
		return nil, out.Error
	}
	if !out.UntrustedContent {
		return out.Result, nil
	}
	return wire.AgentResultJSON(out)
}

// sessionCaller is the broker as an in-process provider sees it.
type sessionCaller struct{ s *Session }

func (c sessionCaller) CallTool(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	return c.s.CallTool(ctx, tool, args)
}
