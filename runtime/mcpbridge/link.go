package mcpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// link is the bridge's one connection to Core for calls (wire.MCPLinkPath):
// proven as it is dialed (the bridge's client, runtime/coreauth), the
// token sent once with the upgrade, then every call one line out and its
// answer one line back, any number at once. It replaced a request per call
// (docs/decisions.md). A link that breaks fails its calls in flight as a
// dropped request did (CORE_UNREACHABLE), and the next call dials anew.
type link struct {
	rwc  io.ReadWriteCloser
	done chan struct{} // closed once the link is broken
	err  error         // why, set before done closes

	wmu sync.Mutex // one line at a time; a leaf
	w   *bufio.Writer

	mu    sync.Mutex // guards next, calls; a leaf
	next  uint64
	calls map[uint64]*linkCall
}

// linkCall is one call waiting on the link.
type linkCall struct {
	answer   chan json.RawMessage // the last line about it; buffered
	progress chan wire.Progress   // buffered; a report that finds it full is dropped (the next one says more)
}

// errNoLink says this Core has no link route (an older Core): calls go by
// request, as before.
var errNoLink = errors.New("this Pedelec Core has no MCP bridge link")

// dialLink opens a link with token.
func dialLink(ctx context.Context, client *http.Client, coreURL, token string) (*link, error) {
	// The link outlives the call that opens it, so its request's ctx is
	// its own: ended only if the upgrade takes too long or the call that
	// waits for it gives up, never once the link is open.
	linkCtx, cancel := context.WithCancel(context.Background())
	slow := time.AfterFunc(linkDialTimeout, cancel)
	gaveUp := context.AfterFunc(ctx, cancel)
	req, err := http.NewRequestWithContext(linkCtx, http.MethodGet, coreURL+wire.MCPLinkPath, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", wire.MCPLinkProtocol)
	resp, err := client.Do(req)
	if !slow.Stop() || !gaveUp() {
		cancel()
		if err == nil {
			resp.Body.Close()
		}
		return nil, fmt.Errorf("the link to Core was not open within %s", linkDialTimeout)
	}
	if err != nil {
		return nil, err
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if resp.StatusCode != http.StatusSwitchingProtocols || !ok {
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return nil, errNoLink
		}
		return nil, fmt.Errorf("pedelec serve answered the link with HTTP %d", resp.StatusCode)
	}
	l := &link{rwc: rwc, done: make(chan struct{}), w: bufio.NewWriter(rwc), calls: map[uint64]*linkCall{}}
	go l.read()
	return l, nil
}

// linkDialTimeout bounds opening a link; a call that finds it slower
// goes by request.
const linkDialTimeout = 5 * time.Second

// read hands each answer line to its call until the link breaks.
func (l *link) read() {
	in := bufio.NewScanner(l.rwc)
	in.Buffer(make([]byte, 0, 4096), 1<<30) // Core bounds a result; the bridge takes what Core sends
	for in.Scan() {
		var a wire.MCPLinkAnswer
		if json.Unmarshal(in.Bytes(), &a) != nil {
			continue
		}
		l.mu.Lock()
		c := l.calls[a.ID]
		if c != nil && a.Progress == nil {
			delete(l.calls, a.ID)
		}
		l.mu.Unlock()
		switch {
		case c == nil:
		case a.Progress != nil:
			select {
			case c.progress <- *a.Progress:
			default:
			}
		default:
			c.answer <- a.Answer
		}
	}
	l.err = in.Err()
	if l.err == nil {
		l.err = io.EOF
	}
	close(l.done)
	l.rwc.Close()
}

// broken reports whether the link can no longer carry calls.
func (l *link) broken() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// call sends one call and waits for its answer; ctx ending cancels it in
// Core. The error is the link's: it broke before the answer.
func (l *link) call(ctx context.Context, req wire.MCPLinkCall, progress func(wire.Progress)) (wire.AgentResult, error) {
	c := &linkCall{answer: make(chan json.RawMessage, 1)}
	if progress != nil {
		c.progress = make(chan wire.Progress, 16)
	}
	l.mu.Lock()
	l.next++
	req.ID = l.next
	l.calls[req.ID] = c
	l.mu.Unlock()
	args := req.Args
	req.Args = nil
	if args != nil && !json.Valid(args) {
		l.forget(req.ID)
		return wire.AgentResult{Error: wire.Errorf(wire.CodeInvalidInput, "encode request: the arguments are not one JSON value")}, nil
	}
	line, err := wire.MarshalRaw(req, "args", args)
	if err == nil {
		err = l.send(line)
	}
	if err != nil {
		l.forget(req.ID)
		return wire.AgentResult{}, err
	}
	for {
		select {
		case raw := <-c.answer:
			var out wire.AgentResult
			if err := json.Unmarshal(raw, &out); err != nil || (!out.OK && out.Error == nil) {
				return wire.AgentResult{Error: wire.Errorf(wire.CodeCoreUnreachable, "Core answered on the link with something that is not a Pedelec answer: %.200s", raw)}, nil
			}
			return out, nil
		case p := <-c.progress:
			progress(p)
		case <-ctx.Done():
			l.forget(req.ID)
			if cancel, err := json.Marshal(wire.MCPLinkCall{ID: req.ID, Cancel: true}); err == nil {
				_ = l.send(cancel)
			}
			return wire.AgentResult{}, context.Cause(ctx)
		case <-l.done:
			return wire.AgentResult{}, l.err
		}
	}
}

func (l *link) forget(id uint64) {
	l.mu.Lock()
	delete(l.calls, id)
	l.mu.Unlock()
}

func (l *link) send(line []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.w.Write(line)
	l.w.WriteByte('\n')
	if err := l.w.Flush(); err != nil {
		l.rwc.Close() // read ends and reports the link broken
		return err
	}
	return nil
}
