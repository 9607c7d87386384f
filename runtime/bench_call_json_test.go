package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What a call's arguments and result cost in Core: the broker called in
// process, as the openai provider calls it, and a page that does as little
// as a page can (leanPage), so the figures are Core's own. The 64 KiB case
// is an editor's document going in and coming back; its bytes show what
// each hop does with a call's JSON (docs/performance.md, "A call's JSON").
// `go test ./runtime -run '^$' -bench CallJSON -benchmem`
func BenchmarkCallJSON(b *testing.B) {
	for _, c := range []struct {
		name, tool string
		args       json.RawMessage
	}{
		{"small", "update_counter", json.RawMessage(`{"delta":2}`)},
		{"64KiB", "replace_text", largeArgs(64 << 10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var result bytes.Buffer
			json.Compact(&result, c.args) // what JSON.stringify would send back
			s := leanPage(b, result.Bytes())
			b.SetBytes(int64(len(c.args) + result.Len()))
			b.ReportAllocs()
			b.ResetTimer()
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				if _, err := s.CallTool(context.Background(), c.tool, c.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// leanPage creates a session with benchSkills on a turn that stays
// running, and answers each of its tool calls with result. It finds the
// call's id by searching the frame rather than decoding it, and sends a
// submit frame put together from bytes.
func leanPage(b *testing.B, result []byte) *session.Session {
	core, srv := newTestCore(b, holdProvider{})
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	ws, _, err := websocket.Dial(ctx, wsURL(srv), nil)
	if err != nil {
		b.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	b.Cleanup(func() { ws.CloseNow() })
	send := func(frame string) {
		if err := ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			b.Fatal(err)
		}
	}
	await := func(want string) []byte {
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(data, []byte(want)) {
				return data
			}
		}
	}
	send(`{"type":"request","id":1,"method":"create_session","params":{"provider":"hold","skills":` + benchSkills + `}}`)
	var created struct {
		Result wire.SessionInfo `json:"result"`
	}
	if err := json.Unmarshal(await(`"id":1`), &created); err != nil {
		b.Fatal(err)
	}
	id := created.Result.SessionID
	send(`{"type":"request","id":2,"method":"send_text","params":{"sessionId":"` + id + `","text":"go"}}`)
	await(`"id":2`)
	s, werr := core.session(id)
	if werr != nil {
		b.Fatal(werr)
	}
	go func() {
		key := []byte(`"toolRequestId":"`)
		frame := []byte(nil)
		for n := int64(3); ; n++ {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			if !bytes.Contains(data, []byte(`"event":"tool_call"`)) {
				continue
			}
			i := bytes.Index(data, key) + len(key)
			call := data[i : i+bytes.IndexByte(data[i:], '"')]
			frame = append(frame[:0], `{"type":"request","id":`...)
			frame = strconv.AppendInt(frame, n, 10)
			frame = append(frame, `,"method":"submit_tool_result","params":{"sessionId":"`+id+`","toolRequestId":"`...)
			frame = append(append(append(frame, call...), `","result":`...), result...)
			frame = append(frame, "}}"...)
			wctx, done := context.WithTimeout(ctx, 10*time.Second)
			err = ws.Write(wctx, websocket.MessageText, frame)
			done()
			if err != nil {
				return
			}
		}
	}()
	return s
}
