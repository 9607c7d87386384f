package page

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// handleUpdateTools replaces the session's whole tool list (WebMCP pages
// register and unregister tools at any time; session.Session.UpdateTools).
func handleUpdateTools(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.UpdateToolsParams
	s, err := c.sessionFor(params, &p, func() error {
		if t := bytes.TrimSpace(p.Tools); len(t) == 0 || string(t) == "null" {
			return wire.Errorf(wire.CodeInvalidInput, "params.tools is required: the whole new list of tool definitions ([] for none)")
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	res, err := s.UpdateTools(p.Tools)
	if err != nil {
		return nil, nil, err
	}
	return res, nil, nil
}
