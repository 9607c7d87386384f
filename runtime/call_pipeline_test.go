package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One call pipeline (session.Session.Call): a running call keeps the
// definition it started with, to the end. The page redefines the tool
// with update_tools while the call runs (no outputSchema, no
// untrustedContentHint any more), then answers. On every way a call
// arrives, the answer is still judged by the first definition: a result
// that breaks its outputSchema is TOOL_RESULT_INVALID, one that fits is
// marked untrusted.
const pipelineSkills = `{"guidance":"g","tools":[{"name":"read","description":"Reads a page.",
  "argsSchema":{"type":"object","properties":{},"required":[]},
  "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},
  "annotations":{"untrustedContentHint":true}}]}`

const pipelineRedefined = `[{"name":"read","description":"Reads a page, now trusted.",
  "argsSchema":{"type":"object","properties":{},"required":[]}}]`

// pipelineTransport runs one call of "read" the way one transport does
// and gives its answer as Core's wire.AgentResult (an MCP client's as
// read back from its tools/call result).
type pipelineTransport struct {
	name     string
	provider string // "held" (a turn runs) or "mcp" (an external client)
	call     func(t *testing.T, h *harness, s *session.Session, ht *heldTurn) wire.AgentResult
}

func TestCallKeepsItsDefinitionOnEveryTransport(t *testing.T) {
	transports := []pipelineTransport{
		{"in-process provider", "held", func(t *testing.T, h *harness, s *session.Session, ht *heldTurn) wire.AgentResult {
			res, err := ht.call("read", `{}`)
			if err != nil {
				return wire.AgentResult{Error: wire.AsError(err)}
			}
			var out wire.AgentResult // an untrusted result carries its mark inside
			if json.Unmarshal(res, &out) != nil || !out.OK {
				return wire.AgentResult{OK: true, Result: res}
			}
			return out
		}},
		{"tool-call", "held", func(t *testing.T, h *harness, s *session.Session, _ *heldTurn) wire.AgentResult {
			c := agentclient.Client{BaseURL: h.srv.URL, Secret: s.Secret()}
			return c.ToolCall(context.Background(), AgentThreadID(s.ID()), "read", json.RawMessage(`{}`))
		}},
		{"tool-call with a budget", "held", func(t *testing.T, h *harness, s *session.Session, _ *heldTurn) wire.AgentResult {
			c := agentclient.Client{BaseURL: h.srv.URL, Secret: s.Secret()}
			return c.ToolCallWith(context.Background(), AgentThreadID(s.ID()), "read", json.RawMessage(`{}`),
				agentclient.CallOptions{Budget: time.Minute, Progress: func(wire.Progress) {}})
		}},
		{"a session's MCP endpoint (ACP agents)", "held", func(t *testing.T, h *harness, s *session.Session, _ *heldTurn) wire.AgentResult {
			srv := s.MCPServer()
			return mcpClientCall(t, srv.URL, srv.Headers, "read")
		}},
		{"Core's /mcp", "mcp", func(t *testing.T, h *harness, s *session.Session, _ *heldTurn) wire.AgentResult {
			return mcpClientCall(t, h.srv.URL+wire.MCPPath, map[string]string{"Authorization": "Bearer " + h.core.token}, "read")
		}},
		{"the bridge's /mcp/call (pedelec mcp)", "mcp", func(t *testing.T, h *harness, s *session.Session, _ *heldTurn) wire.AgentResult {
			c := agentclient.Client{BaseURL: h.srv.URL, Secret: h.core.token}
			return c.Post(context.Background(), wire.MCPCallPath, wire.MCPCallRequest{SessionID: s.ID(), Tool: "read", Args: json.RawMessage(`{}`)})
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			out := pipelineCall(t, tr, `{"n":"not a number"}`)
			if out.Error == nil || out.Error.Code != wire.CodeToolResultInvalid {
				t.Errorf("a result that breaks the first definition's outputSchema: %+v, want %s", out, wire.CodeToolResultInvalid)
			}
			out = pipelineCall(t, tr, `{"n":1}`)
			if !out.OK || !out.UntrustedContent || string(out.Result) != `{"n":1}` {
				t.Errorf("a result that fits: %+v (%s), want it marked untrusted", out, out.Result)
			}
		})
	}
}

// pipelineCall opens a session with pipelineSkills, runs one call of
// "read" through tr, redefines the tool while the call runs, answers it
// with result and returns what the caller got.
func pipelineCall(t *testing.T, tr pipelineTransport, result string) wire.AgentResult {
	t.Helper()
	h := newHarness(t, func(o *Options) {
		turns := make(chan *heldTurn, 4)
		o.Providers = provider.NewRegistry("", heldProvider{turns: turns}, provider.NewMCP())
	})
	h.turns = nil
	p := h.page()
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: tr.provider, Skills: json.RawMessage(pipelineSkills), AutoEndOnDisconnect: &autoEnd})
	s, err := h.core.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var ht *heldTurn
	if tr.provider == "held" {
		p.SendText(info.SessionID, "go")
		ht = heldTurnOf(t, h)
		defer func() { ht.finish <- nil }()
	}
	got := make(chan wire.AgentResult, 1)
	go func() { got <- tr.call(t, h, s, ht) }()
	call := toolCall(t, p, "read", 1)
	p.MustCall(wire.MethodUpdateTools, map[string]any{"sessionId": info.SessionID, "tools": json.RawMessage(pipelineRedefined)})
	p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(result)})
	select {
	case out := <-got:
		return out
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not come back")
		return wire.AgentResult{}
	}
}

// heldTurnOf is the held provider's next turn of h's Core.
func heldTurnOf(t *testing.T, h *harness) *heldTurn {
	t.Helper()
	reg := h.core.opts.Providers
	prov, _ := reg.Get("held")
	select {
	case ht := <-prov.(heldProvider).turns:
		return ht
	case <-time.After(10 * time.Second):
		t.Fatal("the provider was not asked for a turn")
		return nil
	}
}

// mcpClientCall calls tool on the MCP server at endpoint as an MCP client
// does, and reads its tools/call result back as Core's answer: isError's
// Pedelec error, or the result with its untrusted mark (_meta).
func mcpClientCall(t *testing.T, endpoint string, headers map[string]string, tool string) wire.AgentResult {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "pipeline-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: withHeaders{headers, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Errorf("connect to %s: %v", endpoint, err)
		return wire.AgentResult{}
	}
	defer cs.Close()
	name := tool
	if list, err := cs.ListTools(ctx, nil); err == nil {
		for _, lt := range list.Tools {
			if lt.Name == tool || strings.HasSuffix(lt.Name, "__"+tool) {
				name = lt.Name
			}
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		t.Errorf("tools/call %s: %v", name, err)
		return wire.AgentResult{}
	}
	if res.IsError {
		var body wire.AgentResult
		_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body)
		return body
	}
	out := wire.AgentResult{OK: true, UntrustedContent: res.Meta["pedelec/untrustedContent"] == true}
	out.Result, _ = json.Marshal(res.StructuredContent)
	return out
}
