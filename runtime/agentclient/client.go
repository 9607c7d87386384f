// Package agentclient is the one client of Core's endpoints that answer
// with a wire.AgentResult: what `pedelec tool-call` and `tool-spec` use to
// reach Core from inside a provider's shell (with the session's secret,
// found in the environment Core gave the provider process), and what
// `pedelec mcp` forwards calls with (with Core's token).
package agentclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Client calls one Core.
type Client struct {
	BaseURL string // PEDELEC_CORE_URL
	// Secret is sent as the Bearer token: PEDELEC_AGENT_SECRET for the
	// agent endpoint, Core's token for the MCP endpoint.
	Secret string
	// HTTP, when set, sends the requests (`pedelec mcp` and in-process
	// benchmarks keep connections open this way); nil means one plain
	// connection per request.
	HTTP *http.Client
	// URLFrom names where BaseURL came from, for the error a malformed one
	// gets; empty means PEDELEC_CORE_URL.
	URLFrom string
	// Dial connects a Client without HTTP. FromEnv sets the dialer that
	// makes Core prove its key before the request goes out
	// (coreauth.Dialer); nil dials plainly (in-process tests). A Client
	// with HTTP proves through that client's transport.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// FromEnv reads the client settings Core put in the environment. The key
// Core must prove is wire.EnvCoreKey, else that of the state directory in
// PEDELEC_STATE_DIR or stateDir (a command run by hand).
func FromEnv(getenv func(string) string, stateDir string) (*Client, error) {
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
	base = strings.TrimRight(base, "/")
	prove := &coreauth.Dialer{Expect: coreauth.FromEnv(getenv, stateDir), CoreURL: base}
	return &Client{BaseURL: base, Secret: secret, Dial: prove.DialContext}, nil
}

// ToolCall forwards one call and waits for Core's answer, however long the
// tool's timeout is: Core owns the deadline.
func (c *Client) ToolCall(ctx context.Context, threadID, tool string, args json.RawMessage) wire.AgentResult {
	return c.Post(ctx, wire.AgentToolCallPath, wire.AgentToolCallRequest{ThreadID: threadID, Tool: tool, Args: args})
}

// CallOptions are what a `tool-call` adds to a plain call (issue 26).
type CallOptions struct {
	// Budget > 0: Core answers TOOL_CALL_PENDING with a handle once the
	// call has run this long, so the command can exit before the agent's
	// shell kills it.
	Budget time.Duration
	// Progress, when set, gets the call's progress reports as they come
	// (Core streams them, at most four a second).
	Progress func(wire.Progress)
	// MCP asks for the answer an MCP client gets (`pedelec mcp` serving
	// one session): the page's MCP content blocks with the result.
	MCP bool
}

// ToolCallWith is ToolCall with a budget and progress.
func (c *Client) ToolCallWith(ctx context.Context, threadID, tool string, args json.RawMessage, o CallOptions) wire.AgentResult {
	req := wire.AgentToolCallRequest{ThreadID: threadID, Tool: tool, Args: args, BudgetMs: o.Budget.Milliseconds(), Stream: o.Progress != nil, MCP: o.MCP}
	return c.PostStream(ctx, wire.AgentToolCallPath, req, o.Progress)
}

// ToolWait waits for a call handed over with TOOL_CALL_PENDING.
func (c *Client) ToolWait(ctx context.Context, threadID, handle string, o CallOptions) wire.AgentResult {
	req := wire.AgentToolWaitRequest{ThreadID: threadID, Handle: handle, BudgetMs: o.Budget.Milliseconds(), Stream: o.Progress != nil}
	return c.PostStream(ctx, wire.AgentToolWaitPath, req, o.Progress)
}

// ToolSpec fetches one tool's definition.
func (c *Client) ToolSpec(ctx context.Context, threadID, tool string) wire.AgentResult {
	return c.Post(ctx, wire.AgentToolSpecPath, wire.AgentToolSpecRequest{ThreadID: threadID, Tool: tool})
}

// Post sends request as JSON to path and reads Core's answer,
// {"ok":true,"result":...} or {"ok":false,"error":{...}}. A request that
// gets no such answer is a CORE_UNREACHABLE failure.
func (c *Client) Post(ctx context.Context, path string, request any) wire.AgentResult {
	return c.PostStream(ctx, path, request, nil)
}

// PostStream is Post for a request that asked for a streamed answer:
// progress gets each {"progress":...} line before the result.
func (c *Client) PostStream(ctx context.Context, path string, request any, progress func(wire.Progress)) wire.AgentResult {
	data, err := encodeRequest(request)
	if err != nil {
		return failure(wire.Errorf(wire.CodeInvalidInput, "encode request: %w", err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(data))
	if err != nil {
		urlFrom := c.URLFrom
		if urlFrom == "" {
			urlFrom = wire.EnvCoreURL
		}
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "bad %s %q: %w", urlFrom, c.BaseURL, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Secret)
	var resp *http.Response
	if c.HTTP != nil {
		resp, err = c.HTTP.Do(req)
	} else {
		resp, err = oneShot(req, c.Dial)
	}
	if err != nil {
		var werr *wire.Error
		if errors.As(err, &werr) {
			return failure(werr) // the proof failed, nothing was sent: say what answered
		}
		if ctx.Err() != nil {
			return failure(cancelled(ctx, toolOf(request)))
		}
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "cannot reach Pedelec Core at %s: %w", c.BaseURL, err))
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	if progress != nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		body = readProgress(resp.Body, progress)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		if ctx.Err() != nil {
			return failure(cancelled(ctx, toolOf(request)))
		}
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "read Core's answer: %w", err))
	}
	var out wire.AgentResult
	if err := json.Unmarshal(raw, &out); err != nil || (!out.OK && out.Error == nil) {
		return failure(wire.Errorf(wire.CodeCoreUnreachable, "Core answered HTTP %d with something that is not a Pedelec answer: %.200s", resp.StatusCode, raw))
	}
	return out
}

// readProgress passes each progress line at the head of a streamed answer
// to progress and returns the reader of the rest: the AgentResult, read as
// any answer is (a result may span lines, when a page that is not the SDK
// sends one).
func readProgress(r io.Reader, progress func(wire.Progress)) io.Reader {
	br := bufio.NewReader(r)
	prefix := []byte(`{"progress":`)
	for {
		head, err := br.Peek(len(prefix))
		if err != nil || !bytes.Equal(head, prefix) {
			return br
		}
		line, err := br.ReadBytes('\n')
		var l wire.AgentStreamLine
		if json.Unmarshal(line, &l) == nil && l.Progress != nil {
			progress(*l.Progress)
		}
		if err != nil {
			return br
		}
	}
}

// encodeRequest is json.Marshal(request), but a call's arguments go in as
// the caller has them (wire.MarshalRaw): Core decodes them once, to check
// them, and the page gets these very bytes.
func encodeRequest(request any) ([]byte, error) {
	var args json.RawMessage
	switch r := request.(type) {
	case wire.AgentToolCallRequest:
		args, r.Args = r.Args, nil
		request = r
	case wire.MCPCallRequest:
		args, r.Args = r.Args, nil
		request = r
	default:
		return json.Marshal(request)
	}
	if args != nil && !json.Valid(args) {
		return nil, errors.New("the arguments are not one JSON value")
	}
	return wire.MarshalRaw(request, "args", args)
}

// cancelled is the answer when the agent itself gave up (its Ctrl-C): not
// CORE_UNREACHABLE, which asks for a retry. Core sees the connection go and
// settles the call as cancelled; the page may already have acted on it.
func cancelled(ctx context.Context, tool string) *wire.Error {
	return wire.Errorf(wire.CodeToolCallCancelled, "the call to %s was cancelled before Core answered (%w); the page may already have acted on it. Do not repeat it unless the user asks", tool, context.Cause(ctx))
}

// toolOf names the tool a request is about, for the cancelled message.
func toolOf(request any) string {
	switch r := request.(type) {
	case wire.AgentToolCallRequest:
		return r.Tool
	case wire.AgentToolSpecRequest:
		return r.Tool
	case wire.MCPCallRequest:
		return r.Tool
	case wire.AgentToolWaitRequest:
		return "the call " + r.Handle
	}
	return "Core"
}

func failure(err *wire.Error) wire.AgentResult { return wire.AgentResult{OK: false, Error: err} }

// Print writes r as one JSON line, the only thing on stdout: the result
// as the page sent it (Core's answer holds it as it is), unless it spans
// lines, which only a page that is not the SDK sends.
func Print(w io.Writer, r wire.AgentResult) {
	if bytes.ContainsAny(r.Result, "\r\n") {
		var one bytes.Buffer
		if json.Compact(&one, r.Result) == nil {
			r.Result = one.Bytes()
		}
	}
	data, err := wire.AgentResultJSON(r)
	if err != nil {
		data = []byte(fmt.Sprintf(`{"ok":false,"error":{"code":"INTERNAL","message":%q}}`, err.Error()))
	}
	// Read by an agent or a person, never put in HTML: `<` stays `<`.
	w.Write(append(wire.UnescapeHTML(data), '\n'))
}
