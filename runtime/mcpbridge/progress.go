package mcpbridge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress sends notifications/progress for one tools/call whose request
// carries _meta.progressToken, until the call answers. Clients that reset
// their request timeout on progress (the TypeScript SDK's
// resetTimeoutOnProgress) then keep waiting for a page's handler that
// takes longer than their timeout but not longer than Core's.
//
// Two sources feed it. A heartbeat, every interval, says how long the
// call has waited ("waiting for the page's handler (12 s of 30 s)",
// progress = the seconds waited, no total: time is not work done). And
// report, the Caller's progress func,
// passes on what the call itself reports (issue 26's ctx.progress); once
// it has, the heartbeat stops, because the handler's progress has a scale
// of its own and MCP wants every notification's progress above the last.
// A report that would not be above the last one sent is dropped. A call
// that starts reporting after heartbeats went out has its reports (and
// total) moved up by the last heartbeat's value: MCP wants progress to
// grow, and the ratio of the two stays close to the handler's.
type progress struct {
	session *mcp.ServerSession // nil: the client asked for none
	ctx     context.Context
	token   any
	start   time.Time

	mu       sync.Mutex
	last     float64
	sent     bool
	reported bool    // the call reported its own progress: no more heartbeats
	base     float64 // added to the call's reports: the last heartbeat before them
	ended    bool    // the call answered: nothing more may be sent

	stopBeat func()        // ends the heartbeat
	beatDone chan struct{} // closed when the heartbeat has ended
}

// startProgress begins reporting for the call of req; stop it before the
// result goes out. timeout is the call's limit in Core (0: unknown).
func startProgress(ctx context.Context, req *mcp.CallToolRequest, every, timeout time.Duration) *progress {
	p := &progress{ctx: ctx, start: time.Now()}
	if req == nil || req.Params == nil || req.Session == nil {
		return p
	}
	if p.token = req.Params.GetProgressToken(); p.token == nil {
		return p
	}
	p.session = req.Session
	beatCtx, cancel := context.WithCancel(ctx)
	p.stopBeat, p.beatDone = cancel, make(chan struct{})
	go p.heartbeat(beatCtx, every, timeout)
	return p
}

func (p *progress) heartbeat(ctx context.Context, every, timeout time.Duration) {
	defer close(p.beatDone)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		waited := time.Since(p.start)
		msg := fmt.Sprintf("waiting for the page's handler (%s)", seconds(waited))
		if timeout > 0 {
			msg = fmt.Sprintf("waiting for the page's handler (%s of %s)", seconds(waited), seconds(timeout))
		}
		p.send(wire.Progress{Progress: waited.Seconds(), Message: msg}, false)
	}
}

func seconds(d time.Duration) string { return fmt.Sprintf("%d s", int64(d/time.Second)) }

// report passes on the call's own progress.
func (p *progress) report(r wire.Progress) { p.send(r, true) }

// reporter is the Caller's progress func: report, or nil when the client
// asked for no progress (nothing would reach it).
func (p *progress) reporter() func(wire.Progress) {
	if p.session == nil {
		return nil
	}
	return p.report
}

func (p *progress) send(r wire.Progress, fromCall bool) {
	if p.session == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock() // held while sending: notifications go out in order
	if p.ended || (!fromCall && p.reported) {
		return
	}
	if fromCall {
		if !p.reported && p.sent {
			p.base = p.last
		}
		p.reported = true
		r.Progress += p.base
		if r.Total > 0 {
			r.Total += p.base
		}
	}
	if p.sent && r.Progress <= p.last {
		return
	}
	p.last, p.sent = r.Progress, true
	// The request's ctx: over HTTP, the notification goes on the stream of
	// the POST that carries the call. A client gone makes it fail, which
	// the call's ctx ending reports anyway.
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token,
		Progress:      r.Progress,
		Total:         r.Total,
		Message:       r.Message,
	})
}

// stop ends the reporting; nothing is sent after it returns.
func (p *progress) stop() {
	if p.session == nil {
		return
	}
	p.stopBeat()
	<-p.beatDone
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
}
