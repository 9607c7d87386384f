package mcpserver

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/charmbracelet/log"

	"github.com/kaoruisaac/pedelec/runtime/agentserver"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/refusals"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// mcpLongPoll bounds one bridge long-poll; `pedelec mcp` asks again at once.
const mcpLongPoll = 25 * time.Second

// Server is Core's MCP surfaces. Core fills in the exported fields, then
// calls Start; none changes after.
type Server struct {
	Sessions        *session.Table
	Version         string
	MaxMessageBytes int64
	ReadTimeout     time.Duration
	Log             *log.Logger
	Refusals        *refusals.Log
	// Guard lets a request reach /mcp or the bridge's routes: Core's
	// origin rule (MCP's DNS-rebinding rule) and its token.
	Guard func(http.Handler) http.Handler

	ctx       context.Context // Core's lifetime: done when Core stops
	hub       hub
	endpoints sessionEndpoints // the sessions' own endpoints (session_endpoint.go)
}

// Start readies the server for Mount and SessionChanged; ctx is Core's
// lifetime: when it ends, every MCP stream and long-poll ends and the
// sessions' endpoints close.
func (m *Server) Start(ctx context.Context) {
	m.ctx = ctx
	m.hub = hub{id: ids.New("c_"), changed: make(chan struct{})}
}

// Mount adds the MCP surface: the bridge `pedelec mcp` uses and the
// Streamable HTTP endpoint /mcp, both behind Guard (the Host check and
// the peer check cover them like every endpoint), and the sessions' own
// endpoints.
func (m *Server) Mount(mux *http.ServeMux) {
	// The handler's ctx.progress reaches a client that asked for progress
	// (progress.go); until it reports, the mirror says that it waits.
	mirror := mcpbridge.NewMirror(m.Version, m.Answer, mcpbridge.Options{Logger: m.Log})
	mirror.Update(m.Snapshot())
	go func() {
		snap := m.Snapshot()
		for m.ctx.Err() == nil {
			snap = m.Watch(m.ctx, snap.Core, snap.Version)
			mirror.Update(snap)
		}
	}()
	streamable := mcpbridge.NewHTTPHandler(mirror, m.MaxMessageBytes)
	context.AfterFunc(m.ctx, streamable.Close) // Core stopping ends every MCP session

	mux.Handle("GET "+wire.MCPToolsPath, m.guard(http.HandlerFunc(m.serveTools)))
	mux.Handle("POST "+wire.MCPCallPath, m.guard(http.HandlerFunc(m.serveCall)))
	mux.Handle("GET "+wire.MCPLinkPath, m.guard(http.HandlerFunc(m.serveLink)))
	for _, method := range []string{"GET", "POST", "DELETE"} { // the Streamable HTTP transport's three
		mux.Handle(method+" "+wire.MCPPath, m.guard(streamable))
	}
	m.mountSessionEndpoints(mux)
}

// guard is Guard, and ends the request when Core shuts down (an MCP
// client's open event stream, a long-poll).
func (m *Server) guard(next http.Handler) http.Handler {
	return m.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(m.ctx, cancel)
		defer stop()
		next.ServeHTTP(w, r.WithContext(ctx))
	}))
}

// serveTools answers the bridge's long-poll: the tool set as soon as it
// differs from the one the caller has (?core=&after=), or after mcpLongPoll.
func (m *Server) serveTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
	ctx, cancel := context.WithTimeout(r.Context(), mcpLongPoll)
	defer cancel()
	wire.WriteJSON(w, http.StatusOK, m.Watch(ctx, q.Get("core"), after))
}

// serveCall runs one call for `pedelec mcp`; the request is held open
// until the result. The client dropping the request cancels the call.
func (m *Server) serveCall(w http.ResponseWriter, r *http.Request) {
	var req wire.MCPCallRequest
	if err := agentserver.ReadRequest(w, r, &req, m.MaxMessageBytes, m.ReadTimeout); err != nil {
		agentserver.Write(w, nil, err)
		return
	}
	if req.SessionID == "" || req.Tool == "" {
		agentserver.Write(w, nil, wire.Errorf(wire.CodeInvalidInput, "sessionId and tool are required"))
		return
	}
	if req.Stream {
		m.serveCallStream(w, r, req)
		return
	}
	agentserver.WriteResult(w, m.Answer(r.Context(), req.SessionID, req.Tool, req.Args, nil))
}
