package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Bridge is `pedelec mcp`'s link to a running Core: it long-polls the tool
// set into a Mirror and forwards calls. Core may start after, stop before,
// or restart under it; the Mirror follows.
type Bridge struct {
	CoreURL  string // http://127.0.0.1:7077
	StateDir string // where Core writes core-token
	Log      *log.Logger
	HTTP     *http.Client
	// Retry is the wait between attempts while Core is down (default 1s).
	Retry time.Duration

	// SessionID and Secret, when set (NewSessionBridge), make this the
	// bridge of one session: its tools only, under their own names, with
	// the session's agent secret instead of the Core token (session_bridge.go).
	SessionID, Secret string
	// Gone, if set, hears why a session bridge's session is gone for good
	// (it ended, or Core no longer knows its secret); Follow then returns.
	Gone func(*wire.Error)

	// known is the Core token last read from its file: calls send it
	// without reading the file each time (a system call or three per
	// call); the long-poll reads it afresh, and a call that Core refuses
	// with CORE_TOKEN_INVALID reads it again and is sent once more.
	known atomic.Pointer[string]

	linkMu sync.Mutex // guards link, noLink; held while a link is dialed
	link   *link      // the calls' connection to Core (link.go)
	noLink bool       // Core has no link route: calls go by request
}

// linkFor is the open link, dialed with token if there is none (a session
// bridge has none: it calls as tool-call does).
func (b *Bridge) linkFor(ctx context.Context, token string) (*link, error) {
	if b.sessionMode() {
		return nil, errNoLink
	}
	b.linkMu.Lock()
	defer b.linkMu.Unlock()
	if b.noLink {
		return nil, errNoLink
	}
	if b.link != nil && !b.link.broken() {
		return b.link, nil
	}
	l, err := dialLink(ctx, b.HTTP, b.CoreURL, token)
	if errors.Is(err, errNoLink) {
		b.noLink = true
	}
	if err != nil {
		return nil, err
	}
	b.link = l
	return l, nil
}

// NewBridge makes a Bridge with a client that keeps connections open, so a
// call costs one request on a warm connection. Each connection it opens
// first makes Core prove the key of stateDir (runtime/coreauth), so the
// token never reaches a program that took Core's port.
func NewBridge(coreURL, stateDir string, logger *log.Logger) *Bridge {
	coreURL = strings.TrimRight(coreURL, "/")
	return &Bridge{CoreURL: coreURL, StateDir: stateDir, Log: logger, HTTP: provingClient(coreURL, coreauth.FromStateDir(stateDir)), Retry: time.Second}
}

// provingClient is the bridge's HTTP client: connections kept open, each
// proven as it is made.
func provingClient(coreURL string, expect coreauth.KeySource) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // Core is on loopback: never through a proxy
	tr.MaxIdleConnsPerHost = 32
	tr.DialContext = (&coreauth.Dialer{Expect: expect, CoreURL: coreURL}).DialContext
	return &http.Client{Transport: tr}
}

func (b *Bridge) tokenPath() string { return filepath.Join(b.StateDir, wire.CoreTokenFile) }

// token reads Core's token from its file (the session's secret for a
// session bridge) and keeps it for calls.
func (b *Bridge) token() (string, error) {
	if b.sessionMode() {
		return b.Secret, nil
	}
	data, err := os.ReadFile(b.tokenPath())
	if err != nil {
		b.known.Store(nil)
		return "", err
	}
	token := strings.TrimSpace(string(data))
	b.known.Store(&token)
	return token, nil
}

// callToken is the token a call sends: the one last read, else the file's.
func (b *Bridge) callToken() (token string, fresh bool, err error) {
	if t := b.known.Load(); t != nil && !b.sessionMode() {
		return *t, false, nil
	}
	token, err = b.token()
	return token, true, err
}

// Follow keeps m's tools equal to Core's mcp sessions until ctx ends. While
// Core is unreachable the tool list is empty and one log line says how to
// start it; when Core comes up, the tools appear (and the client gets
// notifications/tools/list_changed). ready is closed once the first
// attempt has finished, so a caller can hold the client's first tools/list
// until the tools are known (a client that lists once must not see an
// empty list while Core is up).
func (b *Bridge) Follow(ctx context.Context, m *Mirror, ready chan<- struct{}) {
	first := true
	markReady := func() {
		if first {
			first = false
			close(ready)
		}
	}
	defer markReady()
	var core string
	var version int64
	down := "" // the last complaint logged, so each is logged once
	complain := func(msg string, kv ...any) {
		if msg != down {
			b.Log.Warn(msg, kv...)
			down = msg
		}
		m.Update(wire.MCPSnapshot{})
		core, version = "", 0
		markReady()
		select {
		case <-ctx.Done():
		case <-time.After(b.Retry):
		}
	}
	for ctx.Err() == nil {
		snap, err := b.poll(ctx, core, version)
		if ctx.Err() != nil {
			return
		}
		var werr *wire.Error
		if errors.As(err, &werr) && b.sessionGone(werr) {
			b.Log.Error(werr.Message, "code", werr.Code, "core", b.CoreURL)
			m.Update(wire.MCPSnapshot{})
			markReady()
			if b.Gone != nil {
				b.Gone(werr)
			}
			return
		}
		switch {
		case errors.Is(err, os.ErrNotExist):
			complain(b.noTokenMessage(ctx), "core", b.CoreURL)
			continue
		case errors.As(err, &werr) && werr.Code == wire.CodeCoreNotAuthentic:
			complain(werr.Message, "core", b.CoreURL, "code", werr.Code)
			continue
		case errors.As(err, &werr) && werr.Code == wire.CodeCoreTokenInvalid:
			complain("Pedelec Core at "+b.CoreURL+" refused the token in "+b.tokenPath()+"; pass the --state-dir that `pedelec serve` uses", "core", b.CoreURL)
			continue
		case err != nil:
			complain("Pedelec Core is not reachable at "+b.CoreURL+"; start it with `pedelec serve` (or pass --core-url): the page's tools appear here when it is up",
				"err", err)
			continue
		}
		if down != "" || core == "" {
			b.Log.Info("connected to Pedelec Core", "core", b.CoreURL, "sessions", len(snap.Sessions))
			down = ""
		}
		m.Update(snap)
		core, version = snap.Core, snap.Version
		markReady()
	}
}

// poll is one long-poll of the tool set.
func (b *Bridge) poll(ctx context.Context, core string, after int64) (wire.MCPSnapshot, error) {
	var snap wire.MCPSnapshot
	token, err := b.token()
	if err != nil {
		return snap, err
	}
	q := url.Values{"core": {core}, "after": {fmt.Sprint(after)}}
	path := wire.MCPToolsPath
	if b.sessionMode() {
		q.Set("thread", b.SessionID)
		path = wire.MCPSessionToolsPath
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.CoreURL+path+"?"+q.Encode(), nil)
	if err != nil {
		return snap, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := b.HTTP.Do(req)
	if err != nil {
		return snap, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return snap, err
	}
	if resp.StatusCode != http.StatusOK {
		var res wire.AgentResult
		if json.Unmarshal(raw, &res) == nil && res.Error != nil {
			return snap, res.Error
		}
		return snap, fmt.Errorf("pedelec serve answered HTTP %d: %.200s", resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		return snap, fmt.Errorf("the tool list from pedelec serve is not JSON: %w", err)
	}
	return snap, nil
}

// Call forwards one call to Core and waits for its answer; it is the
// Mirror's Caller. Cancelling ctx drops the request, which Core takes as
// the caller giving up: the pending call settles as cancelled and the
// page's ctx.signal aborts. With progress set, Core streams the handler's
// reports to it before the answer.
func (b *Bridge) Call(ctx context.Context, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) wire.AgentResult {
	token, fresh, err := b.callToken()
	if err != nil {
		return wire.AgentResult{Error: wire.AsError(b.noToken(ctx))}
	}
	out := b.callWith(ctx, token, sessionID, tool, args, progress)
	if !fresh && !out.OK && out.Error != nil && out.Error.Code == wire.CodeCoreTokenInvalid {
		// Core restarted with a new token since it was read: Core refused
		// the call before running it, so it is sent again with the file's.
		if token, err = b.token(); err != nil {
			return wire.AgentResult{Error: wire.AsError(b.noToken(ctx))}
		}
		out = b.callWith(ctx, token, sessionID, tool, args, progress)
	}
	return out
}

func (b *Bridge) callWith(ctx context.Context, token, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) wire.AgentResult {
	// Core's token, not a session's secret: the MCP endpoint serves every
	// mcp session of this Core. A session bridge calls as `pedelec
	// tool-call` does, with the session's secret.
	c := agentclient.Client{BaseURL: b.CoreURL, Secret: token, HTTP: b.HTTP, URLFrom: "--core-url"}
	var out wire.AgentResult
	switch l, lerr := b.linkFor(ctx, token); {
	case b.sessionMode():
		out = c.ToolCallWith(ctx, b.SessionID, tool, args, agentclient.CallOptions{Progress: progress, MCP: true})
	case lerr == nil:
		var err error
		out, err = l.call(ctx, wire.MCPLinkCall{SessionID: sessionID, Tool: tool, Args: args, Stream: progress != nil}, progress)
		if err != nil {
			out = wire.AgentResult{Error: wire.Errorf(wire.CodeCoreUnreachable, "the link to Pedelec Core at %s broke before its answer: %v", b.CoreURL, err)}
		}
	default: // no link (an older Core, or it could not be opened): one request
		out = c.PostStream(ctx, wire.MCPCallPath, wire.MCPCallRequest{SessionID: sessionID, Tool: tool, Args: args, Stream: progress != nil}, progress)
	}
	if !out.OK && ctx.Err() != nil && out.Error.Code == wire.CodeCoreUnreachable {
		return wire.AgentResult{Error: wire.Errorf(wire.CodeToolCallCancelled, "the call to %s was cancelled", tool)}
	}
	return out
}
