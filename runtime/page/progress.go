package page

import (
	"context"
	"encoding/json"
	"math"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// maxProgressMessage bounds a progress report's message: it goes to the
// agent's stderr and the console, one line each.
const maxProgressMessage = 1000

// handleToolProgress takes a handler's ctx.progress for one pending call
// (issue 26). It only replaces the call's latest report: whoever waits
// for the call (tool-call, an MCP client) and the console read the latest
// at their own bounded rate (callprogress), so a chatty handler costs one
// small frame each and floods nothing.
func handleToolProgress(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.ToolProgressParams
	s, err := c.sessionFor(params, &p, func() error { return checkProgress(p) })
	if err != nil {
		return nil, nil, err
	}
	return nil, nil, s.ReportProgress(p.ToolRequestID, wire.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
}

// checkProgress names what is wrong with a report.
func checkProgress(p wire.ToolProgressParams) error {
	switch {
	case p.ToolRequestID == "":
		return wire.Errorf(wire.CodeInvalidInput, "params.toolRequestId is required")
	case p.Progress < 0 || math.IsInf(p.Progress, 0):
		return wire.Errorf(wire.CodeInvalidInput, "params.progress must be a number >= 0, got %v", p.Progress).
			WithDetails(map[string]any{"path": "progress", "got": p.Progress})
	case p.Total < 0 || math.IsInf(p.Total, 0):
		return wire.Errorf(wire.CodeInvalidInput, "params.total must be a number >= 0 (or absent when unknown), got %v", p.Total).
			WithDetails(map[string]any{"path": "total", "got": p.Total})
	case len(p.Message) > maxProgressMessage:
		return wire.Errorf(wire.CodeInvalidInput, "params.message is %d bytes; the limit is %d", len(p.Message), maxProgressMessage).
			WithDetails(map[string]any{"path": "message", "size": len(p.Message), "limit": maxProgressMessage})
	}
	return nil
}
