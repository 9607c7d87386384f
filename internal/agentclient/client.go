// Package agentclient is the agent side of the dial-back: what `pedelec
// tool-call` and `tool-spec` use to reach Core from inside a provider's
// shell. It finds Core and the session's secret in the environment Core
// gave the provider process.
package agentclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Client calls one Core's agent endpoint.
type Client struct {
	BaseURL string // PEDELEC_CORE_URL
	Secret  string // PEDELEC_AGENT_SECRET
	// HTTP, when set, sends the requests (in-process benchmarks keep one
	// connection open this way); nil means one plain connection per request.
	HTTP *http.Client
}

// FromEnv reads the client settings Core put in the environment.
func FromEnv(getenv func(string) string) (*Client, error) {
	base, secret := getenv(wire.EnvCoreURL), getenv(wire.EnvSecret)
	var missing []string
	if base == "" {
		missing = append(missing, wire.EnvCoreURL)
	}
	if secret == "" {
		missing = append(missing, wire.EnvSecret)
	}
	if len(missing) > 0 {
		return nil, wire.Errorf(wire.CodeNotInSession,
			"%s not set: this command is run by an agent inside a Pedelec session, whose Core sets them", strings.Join(missing, " and ")).
			WithDetails(map[string]any{"missing": missing})
	}
	return &Client{BaseURL: strings.TrimRight(base, "/"), Secret: secret}, nil
}

// ToolCall forwards one call and waits for Core's answer, however long the
// tool's timeout is: Core owns the deadline.
func (c *Client) ToolCall(ctx context.Context, threadID, tool string, args json.RawMessage) wire.AgentResult {
	return c.post(ctx, wire.AgentToolCallPath, threadID, tool, args)
}

// ToolSpec fetches one tool's definition.
func (c *Client) ToolSpec(ctx context.Context, threadID, tool string) wire.AgentResult {
	return c.post(ctx, wire.AgentToolSpecPath, threadID, tool, nil)
}

// post sends wire.AgentToolCallRequest (args != nil) or
// wire.AgentToolSpecRequest; the JSON is written by requestJSON.
func (c *Client) post(ctx context.Context, path, threadID, tool string, args json.RawMessage) wire.AgentResult {
	data, err := requestJSON(threadID, tool, args)
	if err != nil {
		return failure(wire.Errorf(wire.CodeInvalidInput, "encode request: %w", err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(data))
	if err != nil {
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "bad %s %q: %w", wire.EnvCoreURL, c.BaseURL, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Secret)
	var resp *http.Response
	if c.HTTP != nil {
		resp, err = c.HTTP.Do(req)
	} else {
		resp, err = oneShot(req)
	}
	if err != nil {
		if ctx.Err() != nil {
			return failure(cancelled(ctx, tool))
		}
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "cannot reach Pedelec Core at %s: %w", c.BaseURL, err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return failure(cancelled(ctx, tool))
		}
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "read Core's answer: %w", err))
	}
	out, ok := parseResult(raw)
	if !ok {
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "Core answered HTTP %d with something that is not a Pedelec answer: %.200s", resp.StatusCode, raw))
	}
	return out
}

// cancelled is the answer when the agent itself gave up (its Ctrl-C): not
// CORE_UNREACHABLE, which asks for a retry. Core sees the connection go and
// settles the call as cancelled; the page may already have acted on it.
func cancelled(ctx context.Context, tool string) *wire.Error {
	return wire.Errorf(wire.CodeToolCallCancelled, "the call to %s was cancelled before Core answered (%w); the page may already have acted on it", tool, context.Cause(ctx))
}

func failure(err *wire.Error) wire.AgentResult { return wire.AgentResult{OK: false, Error: err} }

// Print writes r as one JSON line, the only thing on stdout.
func Print(w io.Writer, r wire.AgentResult) {
	if data, ok := appendOK(nil, r); ok {
		w.Write(append(data, '\n'))
		return
	}
	data, err := json.Marshal(r)
	if err != nil {
		data = []byte(fmt.Sprintf(`{"ok":false,"error":{"code":"INTERNAL","message":%q}}`, err.Error()))
	}
	w.Write(append(data, '\n'))
}
