package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/agentserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// serveLink is the bridge's persistent link (wire.MCPLinkPath): once
// Guard admitted the upgrade (Core's Host and Origin rules, the token;
// the peer check ran when the connection was accepted), the connection
// carries calls both ways until either side closes it, each call run as
// serveCall runs one. A call per HTTP request cost both processes a
// request's parsing, headers, deadlines and the guard's chain each time,
// and the client's transport two goroutine hand-offs each way
// (docs/performance.md, "The MCP path"). The client closing the link
// cancels its calls, as dropping a request does; Core stopping closes it.
func (m *Server) serveLink(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), wire.MCPLinkProtocol) {
		agentserver.Write(w, nil, wire.Errorf(wire.CodeInvalidInput, "the link needs \"Upgrade: %s\"", wire.MCPLinkProtocol))
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		agentserver.Write(w, nil, wire.Errorf(wire.CodeInternal, "cannot take over the connection: %v", err))
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Time{}) // the request's read deadline is not the link's
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: " + wire.MCPLinkProtocol + "\r\nConnection: Upgrade\r\n\r\n")
	if rw.Flush() != nil {
		return
	}
	l := &coreLink{m: m, conn: conn, w: rw.Writer, calls: map[uint64]context.CancelFunc{}}
	defer l.wg.Wait() // after the cancel below: the calls end at once
	ctx, cancel := context.WithCancel(m.ctx)
	defer cancel() // the link gone: its calls are cancelled
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	in := bufio.NewScanner(rw.Reader)
	in.Buffer(make([]byte, 0, 4096), int(m.MaxMessageBytes)+4096) // a call's frame around its arguments
	for in.Scan() {
		var call wire.MCPLinkCall
		if err := json.Unmarshal(in.Bytes(), &call); err != nil {
			m.Log.Warn("closed an MCP bridge link that sent a line that is not a call", "err", err)
			return
		}
		l.start(ctx, call)
	}
}

// coreLink is one bridge link's calls.
type coreLink struct {
	m    *Server
	conn net.Conn
	wg   sync.WaitGroup

	wmu sync.Mutex // one line at a time on w; a leaf
	w   *bufio.Writer

	mu    sync.Mutex // guards calls; a leaf
	calls map[uint64]context.CancelFunc
}

// start runs call (or cancels the one it names) beside the link's others.
func (l *coreLink) start(ctx context.Context, call wire.MCPLinkCall) {
	l.mu.Lock()
	if call.Cancel {
		if cancel := l.calls[call.ID]; cancel != nil {
			cancel()
		}
		l.mu.Unlock()
		return
	}
	if _, dup := l.calls[call.ID]; dup {
		l.mu.Unlock()
		l.answer(call.ID, wire.AgentResult{Error: wire.Errorf(wire.CodeInvalidInput, "call %d is already running on this link", call.ID)})
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	l.calls[call.ID] = cancel
	l.mu.Unlock()
	l.wg.Go(func() {
		out := l.run(ctx, call)
		l.mu.Lock()
		delete(l.calls, call.ID)
		l.mu.Unlock()
		cancel()
		l.answer(call.ID, out)
	})
}

func (l *coreLink) run(ctx context.Context, call wire.MCPLinkCall) wire.AgentResult {
	if call.SessionID == "" || call.Tool == "" {
		return wire.AgentResult{Error: wire.Errorf(wire.CodeInvalidInput, "sessionId and tool are required")}
	}
	var progress func(wire.Progress)
	if call.Stream {
		progress = func(p wire.Progress) {
			data, err := json.Marshal(wire.MCPLinkAnswer{ID: call.ID, Progress: &p})
			if err == nil {
				l.write(data)
			}
		}
	}
	return l.m.Answer(ctx, call.SessionID, call.Tool, call.Args, progress)
}

// answer sends call id's answer, its last line.
func (l *coreLink) answer(id uint64, out wire.AgentResult) {
	body, err := wire.AgentResultJSON(out)
	if err != nil {
		body, _ = json.Marshal(wire.AgentResult{Error: wire.AsError(err)})
	}
	line := make([]byte, 0, len(body)+40)
	line = append(strconv.AppendUint(append(line, `{"id":`...), id, 10), `,"answer":`...)
	l.write(append(append(line, body...), '}'))
}

// write sends one line; a link that cannot be written to is closed, which
// ends its reading and cancels its calls.
func (l *coreLink) write(line []byte) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_ = l.conn.SetWriteDeadline(time.Now().Add(linkWriteTimeout))
	l.w.Write(line)
	l.w.WriteByte('\n')
	if l.w.Flush() != nil {
		l.conn.Close()
	}
}

// linkWriteTimeout bounds one answer's write: a bridge that stops reading
// loses its link (and its calls) instead of holding Core's writers.
const linkWriteTimeout = 10 * time.Second
