package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/kaoruisaac/pedelec/e2e/cardtools"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// wsPage is a minimal page over a plain WebSocket: enough to create idle
// sessions for the memory figures, where Chromium would only add noise.
type wsPage struct {
	ws *websocket.Conn
	id int64
}

func dialPage(ctx context.Context, coreURL string) (*wsPage, error) {
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(coreURL, "http")+"/ws", nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(64 << 20)
	return &wsPage{ws: ws}, nil
}

// createSession creates one session with skills and waits for its answer.
func (p *wsPage) createSession(ctx context.Context, skills json.RawMessage) error {
	p.id++
	params, _ := json.Marshal(wire.CreateSessionParams{Provider: "script", Skills: skills})
	frame, _ := json.Marshal(wire.Request{Type: wire.FrameRequest, ID: p.id, Method: wire.MethodCreateSession, Params: params})
	if err := p.ws.Write(ctx, websocket.MessageText, frame); err != nil {
		return err
	}
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			return err
		}
		var r struct {
			Type  string      `json:"type"`
			ID    int64       `json:"id"`
			OK    bool        `json:"ok"`
			Error *wire.Error `json:"error"`
		}
		if json.Unmarshal(data, &r) != nil || r.Type != wire.FrameResponse || r.ID != p.id {
			continue
		}
		if !r.OK {
			return fmt.Errorf("create_session: %s: %s", r.Error.Code, r.Error.Message)
		}
		return nil
	}
}

func (p *wsPage) close() { p.ws.Close(websocket.StatusNormalClosure, "") }

// benchSkills are n tools shaped like the seeds' create_card: a distinct
// name and description each, and the same argument schema.
func benchSkills(n int) json.RawMessage { return cardtools.Manifest(n) }

// rssStep is Core's RSS after some number of sessions.
type rssStep struct {
	sessions int
	rss      int64
}

// growRSS creates sessions of toolsEach tools on a fresh connection and
// samples Core's RSS before and at each of steps (cumulative session counts).
func growRSS(ctx context.Context, core *coreProc, toolsEach int, steps []int) ([]rssStep, error) {
	p, err := dialPage(ctx, core.url)
	if err != nil {
		return nil, err
	}
	defer p.close()
	skills := benchSkills(toolsEach)
	settle := func() (int64, error) {
		// Let the last frames go out and Core settle: it hands back what
		// a burst of large manifests took 100 ms after the burst.
		time.Sleep(time.Second)
		return procRSS(core.cmd.Process.Pid)
	}
	base, err := settle()
	if err != nil {
		return nil, err
	}
	out := []rssStep{{0, base}}
	done := 0
	for _, target := range steps {
		for ; done < target; done++ {
			if err := p.createSession(ctx, skills); err != nil {
				return nil, fmt.Errorf("session %d: %w", done+1, err)
			}
		}
		rss, err := settle()
		if err != nil {
			return nil, err
		}
		out = append(out, rssStep{done, rss})
	}
	return out, nil
}
