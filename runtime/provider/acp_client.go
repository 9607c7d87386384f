package provider

import (
	"context"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// acpClient is Pedelec's side of one ACP connection: it answers the
// agent's requests (permissions by policy; no file system or terminal is
// offered) and turns session/update notifications into the running turn's
// events. Between turns (a session/load replay, late updates) nothing is
// emitted: the replayed history is already on the page.
type acpClient struct {
	name       string // provider, for messages
	server     string // the MCP server name the agent was given
	allowKinds []string

	mu   sync.Mutex
	turn *acpTurn
	// session is the ACP session turns run in, once known: updates of any
	// other (opencode's warm-up session, acp_warmup.go) are not the turn's.
	session acp.SessionId
	calls   map[acp.ToolCallId]acpCallSeen // the turn's tool calls by id (acp_activity.go)
}

// acpTurn is the turn whose events updates become.
type acpTurn struct {
	emit      func(Event)
	cancelled bool
}

func newACPClient(name, server string, allowKinds []string) *acpClient {
	return &acpClient{name: name, server: server, allowKinds: allowKinds, calls: map[acp.ToolCallId]acpCallSeen{}}
}

// begin makes t the turn that updates go to; end stops that.
func (c *acpClient) begin(t *acpTurn) {
	c.mu.Lock()
	c.turn = t
	c.mu.Unlock()
}

func (c *acpClient) end() {
	c.mu.Lock()
	c.turn = nil
	clear(c.calls)
	c.mu.Unlock()
}

// cancel marks the turn cancelled: permission requests from now on are
// answered "cancelled".
func (c *acpClient) cancel() {
	c.mu.Lock()
	if c.turn != nil {
		c.turn.cancelled = true
	}
	c.mu.Unlock()
}

func (c *acpClient) emit(ev Event) {
	c.mu.Lock()
	t := c.turn
	c.mu.Unlock()
	if t != nil {
		t.emit(ev)
	}
}

func (c *acpClient) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	cancelled := c.turn == nil || c.turn.cancelled
	seen := c.calls[callKey(req.ToolCall.ToolCallId)]
	c.mu.Unlock()
	resp, why := acpPermission(req, c.server, seen.title, c.allowKinds, cancelled)
	c.emit(Event{Warning: fmt.Sprintf("%s asked permission: %s", c.name, why)})
	page := acpIsPageTool(req, c.server, seen.title)
	c.remember(req, seen, page)
	if ev, ok := permissionActivity(req, resp, page, seen, why); ok {
		c.emit(ev)
	}
	return resp, nil
}

// own sets the ACP session whose updates are the turns'.
func (c *acpClient) own(id acp.SessionId) {
	c.mu.Lock()
	c.session = id
	c.mu.Unlock()
}

func (c *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	other := c.session != "" && n.SessionId != c.session
	c.mu.Unlock()
	if other {
		return nil
	}
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil && t.Text != "" {
			c.emit(Event{ChatDelta: t.Text})
		}
	case u.ToolCall != nil:
		seen := c.seeCall(u.ToolCall)
		status := string(u.ToolCall.Status)
		if status == "" {
			status = string(acp.ToolCallStatusPending)
		}
		if ev, ok := activity(u.ToolCall.ToolCallId, seen, status, ""); ok {
			c.emit(ev)
		}
	case u.ToolCallUpdate != nil:
		// Only a new status is a step worth showing; content streaming
		// into a running call is not.
		seen := c.seeUpdate(u.ToolCallUpdate)
		if u.ToolCallUpdate.Status != nil {
			if ev, ok := activity(u.ToolCallUpdate.ToolCallId, seen, string(*u.ToolCallUpdate.Status), ""); ok {
				c.emit(ev)
			}
		}
	}
	return nil
}

// No file system and no terminal are offered (initialize says so): the
// agent's own tools are what the policy rejects, and an agent that asks
// anyway is told the method does not exist.
var errACPNotOffered = acp.NewMethodNotFound("not offered by Pedelec")

func (c *acpClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errACPNotOffered
}
func (c *acpClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errACPNotOffered
}
func (c *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errACPNotOffered
}
func (c *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errACPNotOffered
}
func (c *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errACPNotOffered
}
func (c *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errACPNotOffered
}
func (c *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errACPNotOffered
}
