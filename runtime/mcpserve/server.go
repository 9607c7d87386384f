package mcpserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sort"
	"sync"
	"time"
)

// ToolFunc runs one tools/call. ctx ends when the client cancels the call
// (notifications/cancelled), goes away, or the session ends.
type ToolFunc func(ctx context.Context, args json.RawMessage) *CallToolResult

// Server is an MCP server that offers tools, hand-written on the standard
// library (docs/decisions.md says why). Transports (stdio.go,
// streamable_http.go) feed it messages through Sessions.
type Server struct {
	info         Implementation
	instructions string

	mu       sync.Mutex
	tools    map[string]serverTool
	sessions map[*Session]struct{}
	pending  *time.Timer // the debounced list_changed, if one is due
}

type serverTool struct {
	tool Tool
	call ToolFunc
}

// pageSize is how many tools one tools/list page holds (the go-sdk's
// default), so a client that pages gets the same pages as before.
const pageSize = 1000

// listChangedDelay coalesces a burst of tool changes (a page's tools are
// removed and added one Update) into one notification, as the go-sdk did.
const listChangedDelay = 10 * time.Millisecond

// NewServer makes a server with no tools.
func NewServer(info Implementation, instructions string) *Server {
	return &Server{info: info, instructions: instructions, tools: map[string]serverTool{}, sessions: map[*Session]struct{}{}}
}

// AddTool adds (or replaces) a tool, and tells connected clients.
func (s *Server) AddTool(t Tool, call ToolFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools[t.Name] = serverTool{tool: t, call: call}
	s.changedLocked()
}

// RemoveTools removes tools by name, and tells connected clients if any was
// there.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := false
	for _, name := range names {
		if _, ok := s.tools[name]; ok {
			delete(s.tools, name)
			removed = true
		}
	}
	if removed {
		s.changedLocked()
	}
}

func (s *Server) changedLocked() {
	if len(s.sessions) == 0 {
		return // nobody to tell; a client that connects later lists anyway
	}
	if s.pending != nil {
		s.pending.Reset(listChangedDelay)
		return
	}
	s.pending = time.AfterFunc(listChangedDelay, s.notifyListChanged)
}

func (s *Server) notifyListChanged() {
	s.mu.Lock()
	s.pending = nil
	sessions := make([]*Session, 0, len(s.sessions))
	for ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	msg := encodeNotification(notificationToolsChanged, nil)
	for _, ss := range sessions {
		if ss.initialized() {
			ss.notify(msg)
		}
	}
}

// listTools returns one page of tools, sorted by name. The cursor is the
// last name of the previous page, opaque to the client.
func (s *Server) listTools(cursor string) (*listToolsResult, error) {
	after := ""
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(raw) == 0 {
			return nil, errorf(CodeInvalidParams, "invalid cursor %q", cursor)
		}
		after = string(raw)
	}
	s.mu.Lock()
	names := make([]string, 0, len(s.tools))
	for name := range s.tools {
		if name > after {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	res := &listToolsResult{Tools: []Tool{}} // [] rather than null
	for i, name := range names {
		if i == pageSize {
			res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(res.Tools[i-1].Name))
			break
		}
		res.Tools = append(res.Tools, s.tools[name].tool)
	}
	s.mu.Unlock()
	return res, nil
}

func (s *Server) tool(name string) (serverTool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tools[name]
	return t, ok
}
