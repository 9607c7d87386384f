package page

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// sessionCount is the number of live sessions attached to this connection.
func (c *conn) SessionCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sessions)
}

// closeIfSessionless closes the socket if no session has been created or
// resumed on it within --sessionless-timeout: an idle socket costs Core a
// goroutine pair and buffers, and a client that never starts work has no
// reason to hold one. Once a session was attached the timer is gone for
// good, so a page idling with a live session is never cut.
func (c *conn) closeIfSessionless() (stop func()) {
	wait := c.srv.SessionlessTimeout
	t := time.AfterFunc(wait, func() {
		c.mu.Lock()
		had := c.hadSession
		c.mu.Unlock()
		if !had {
			c.log.Debug("closing a page socket that started no session", "after", wait)
			c.close(websocket.StatusPolicyViolation, "no session created or resumed within "+wait.String())
		}
	})
	return func() { t.Stop() }
}

// pingLoop pings the page every --ping-interval; a page that does not
// answer within the next interval is gone (a closed laptop lid, a killed
// browser, a dropped network) and its socket is closed, which detaches its
// sessions. Browsers answer pings by themselves, so a live page always does.
func (c *conn) pingLoop(ctx context.Context) {
	every := c.srv.PingInterval
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, every)
		err := c.ws.Ping(pctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				c.log.Info("page did not answer a ping; closing its socket", "within", every)
				c.close(websocket.StatusGoingAway, "no answer to ping")
				c.ws.CloseNow()
			}
			return
		}
	}
}

// checkFrame refuses frames that are not UTF-8 text: the protocol is JSON
// text, and a decoder that silently replaces bad bytes would change what
// the page sent.
func checkFrame(typ websocket.MessageType, data []byte) error {
	if typ != websocket.MessageText {
		return wire.Errorf(wire.CodeInvalidFrame, "binary frames are not part of the protocol; send each request as a UTF-8 JSON text frame").
			WithDetails(map[string]any{"frame": "binary"})
	}
	if !utf8.Valid(data) {
		return wire.Errorf(wire.CodeInvalidFrame, "the text frame is not valid UTF-8; send each request as a UTF-8 JSON text frame").
			WithDetails(map[string]any{"frame": "invalid-utf8"})
	}
	return nil
}

// requestID recovers the top-level "id" of a frame that cannot be fully
// decoded (too deep, wrong types, binary, bad UTF-8), so the page can match
// the error to its request; 0 when there is none. It walks tokens, which
// has no nesting limit and holds only the current path.
func requestID(data []byte) int64 {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	for {
		key, err := dec.Token()
		if err != nil || key == json.Delim('}') {
			return 0
		}
		if key == "id" {
			tok, err := dec.Token()
			if n, ok := tok.(json.Number); ok && err == nil {
				id, _ := n.Int64()
				return id
			}
			return 0
		}
		if !skipValue(dec) {
			return 0
		}
	}
}

// skipValue consumes one JSON value from dec.
func skipValue(dec *json.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return true
		}
	}
}
