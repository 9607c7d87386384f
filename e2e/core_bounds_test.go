package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// honestRoundTrip proves a page still gets its work done: one turn with one
// tool call answered by the page.
func honestRoundTrip(t *testing.T, p *wspage.Page, sessionID string, delta int) {
	t.Helper()
	turn := p.SendText(sessionID, fmt.Sprintf(`call update_counter {"delta": %d}`, delta))
	if d := p.AwaitDone(turn, 20*time.Second); !d.OK || !strings.Contains(p.Chat(turn), `"value"`) {
		t.Fatalf("the honest page's turn failed: %+v %q", d, p.Chat(turn))
	}
}

// skillsWith is a manifest of guidance and tools.
func skillsWith(guidance string, tools ...map[string]any) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"guidance": guidance, "tools": tools})
	return data
}

func tool(name, description string, schema any) map[string]any {
	return map[string]any{"name": name, "description": description, "argsSchema": schema}
}

var emptySchema = map[string]any{"type": "object", "properties": map[string]any{}, "required": []string{}}

// deepSchema nests objects depth levels deep (the argsSchema itself is 1).
func deepSchema(depth int) any {
	var s any = map[string]any{"type": "string"}
	for i := 0; i < depth-1; i++ {
		s = map[string]any{"type": "object", "properties": map[string]any{"x": s}}
	}
	return s
}

// Every limit is hit and answered with its own code and value, while a
// second, honest page keeps working.
func TestLimitsRefusedWhileHonestPageWorks(t *testing.T) {
	srv := testenv.Serve(t, []string{"--max-sessions", "4", "--max-sessions-per-connection", "2", "--max-tools", "3",
		"--max-tool-name-length", "20", "--max-description-length", "100", "--max-guidance-length", "100",
		"--max-schema-bytes", "1000", "--max-schema-depth", "6"})
	honest := wspage.Dial(t, srv.WSURL, "")
	counterPage(honest)
	mine := scriptSession(t, honest, true)
	honestRoundTrip(t, honest, mine.SessionID, 1)

	attacker := wspage.Dial(t, srv.WSURL, "")
	refused := func(what string, code wire.Code, flag string, skills json.RawMessage) {
		t.Helper()
		_, err := attacker.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: skills})
		if err == nil || err.Code != code {
			t.Fatalf("%s: want %s, got %+v", what, code, err)
		}
		d, _ := err.Details.(map[string]any)
		if d["limit"] != flag || d["value"] == nil || !strings.Contains(err.Message, "--"+flag) {
			t.Fatalf("%s: the error does not name the limit and its value: %+v", what, err)
		}
	}
	ok := tool("ok_tool", "A tool.", emptySchema)
	refused("four tools", wire.CodeTooManyTools, "max-tools",
		skillsWith("g", ok, tool("b", "B.", emptySchema), tool("c", "C.", emptySchema), tool("d", "D.", emptySchema)))
	refused("a long name", wire.CodeToolNameTooLong, "max-tool-name-length", skillsWith("g", tool(strings.Repeat("n", 21), "A tool.", emptySchema)))
	refused("a long description", wire.CodeDescriptionTooLong, "max-description-length", skillsWith("g", tool("t", strings.Repeat("d", 101), emptySchema)))
	refused("long guidance", wire.CodeGuidanceTooLong, "max-guidance-length", skillsWith(strings.Repeat("g", 101), ok))
	refused("a large schema", wire.CodeSchemaTooLarge, "max-schema-bytes", skillsWith("g", tool("t", "A tool.", map[string]any{
		"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string", "description": strings.Repeat("s", 1000)}}})))
	refused("a deep schema", wire.CodeSchemaTooDeep, "max-schema-depth", skillsWith("g", tool("t", "A tool.", deepSchema(7))))
	honestRoundTrip(t, honest, mine.SessionID, 2)

	// Sessions: two on the attacker's connection, a third refused there;
	// the fourth in Core from another connection, a fifth refused anywhere.
	small := skillsWith("g", ok)
	attacker.MustCall(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: small})
	a2 := attacker.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: small})
	refused("a third session on one connection", wire.CodeTooManyConnectionSessions, "max-sessions-per-connection", small)
	other := wspage.Dial(t, srv.WSURL, "")
	other.MustCall(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: small})
	if _, err := other.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: small}); err == nil || err.Code != wire.CodeTooManySessions {
		t.Fatalf("a fifth session in Core: %+v", err)
	}
	honestRoundTrip(t, honest, mine.SessionID, 3)
	// An ended session frees its place at once.
	attacker.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: a2.SessionID})
	testenv.Await(t, 10*time.Second, "the ended session's place to free", func() bool {
		_, err := other.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: small})
		return err == nil
	})
	honestRoundTrip(t, honest, mine.SessionID, 4)
}

// A body trickled to the agent endpoint is cut off after --read-timeout; a
// socket that starts no session is closed after --sessionless-timeout; a
// page idling with a live session is kept across many pings.
func TestSlowClientsClosed(t *testing.T) {
	srv := testenv.Serve(t, []string{"--read-timeout", "500ms", "--sessionless-timeout", "700ms", "--ping-interval", "200ms"})

	// The honest page first, so the slow clients cannot starve it.
	honest := wspage.Dial(t, srv.WSURL, "")
	counterPage(honest)
	info := scriptSession(t, honest, true)

	c, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200\r\nAuthorization: Bearer x\r\n\r\n{\"threadId\":", wire.AgentToolCallPath, srv.Addr)
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "--read-timeout") || time.Since(start) > 10*time.Second {
		t.Fatalf("trickled body: %d %s after %s", resp.StatusCode, body, time.Since(start))
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the trickling connection is still open")
	}

	idle, _, err := wspage.TryDial(srv.WSURL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	testenv.Await(t, 10*time.Second, "the sessionless socket to be closed", idle.Closed)

	time.Sleep(2 * time.Second) // ten ping intervals, three sessionless timeouts
	if honest.Closed() {
		t.Fatal("a page idling with a live session was cut")
	}
	honestRoundTrip(t, honest, info.SessionID, 1)
}

// A peer that completed the WebSocket handshake and then went silent (a
// dead browser) answers no ping and is closed.
func TestDeadPeerFoundByPing(t *testing.T) {
	srv := testenv.Serve(t, []string{"--ping-interval", "200ms", "--sessionless-timeout", "1h"})
	c, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /ws HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", srv.Addr)
	r := bufio.NewReader(c)
	status, _ := r.ReadString('\n')
	if !strings.Contains(status, "101") {
		t.Fatalf("handshake: %q", status)
	}
	// Read (so the pings arrive) but never answer.
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatalf("the silent peer was not closed: %v", err)
	}
}

// Frames that are not UTF-8 text are refused with INVALID_FRAME and the
// request's id; the connection is kept.
func TestBinaryAndInvalidUTF8Frames(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	p.SendBinary([]byte(`{"type":"request","id":501,"method":"list_providers"}`))
	p.Send([]byte("{\"type\":\"request\",\"id\":502,\"method\":\"list_providers\",\"params\":{\"x\":\"\xff\xfe\"}}"))
	for _, id := range []int64{501, 502} {
		r, ok := p.AwaitResponse(id, 10*time.Second)
		if !ok || r.OK || r.Error == nil || r.Error.Code != wire.CodeInvalidFrame {
			t.Fatalf("frame %d: ok=%v %+v", id, ok, r)
		}
	}
	p.MustCall(wire.MethodListProviders, nil)
}

// A frame nested too deeply to decode is answered with its own id.
func TestTooDeepFrameKeepsID(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	p.Send([]byte(`{"type":"request","method":"list_providers","params":{"x":` + deep + `},"id":777}`))
	r, ok := p.AwaitResponse(777, 10*time.Second)
	if !ok || r.OK || r.Error == nil || r.Error.Code != wire.CodeInvalidInput {
		t.Fatalf("too deep frame: ok=%v %+v", ok, r)
	}
	p.MustCall(wire.MethodListProviders, nil)
}

// The agent endpoint wants "Bearer <secret>", and answers an unknown
// session exactly as a wrong secret.
func TestAgentEndpointAnswersAlike(t *testing.T) {
	srv := testenv.Serve(t, []string{"--refusal-log-window", "2s"})
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	turn, call := awaitPendingCall(t, p, info.SessionID)
	var secret string
	for _, kv := range processEnv(t, testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + info.SessionID)[0]) {
		if v, ok := strings.CutPrefix(kv, wire.EnvSecret+"="); ok {
			secret = v
		}
	}
	post := func(threadID, auth string) (int, wire.AgentResult) {
		body, _ := json.Marshal(wire.AgentToolSpecRequest{ThreadID: threadID, Tool: "update_counter"})
		req, _ := http.NewRequest("POST", srv.URL+wire.AgentToolSpecPath, strings.NewReader(string(body)))
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r wire.AgentResult
		json.NewDecoder(resp.Body).Decode(&r)
		return resp.StatusCode, r
	}
	if code, r := post(info.SessionID, "Bearer "+secret); code != 200 || !r.OK {
		t.Fatalf("the right secret: %d %+v", code, r)
	}
	if code, r := post(info.SessionID, secret); code != 403 || r.Error.Code != wire.CodeThreadAccessDenied {
		t.Fatalf("the secret without Bearer: %d %+v", code, r)
	}
	codeWrong, wrong := post(info.SessionID, "Bearer wrong")
	codeUnknown, unknown := post("s_doesnotexist", "Bearer wrong")
	if codeWrong != codeUnknown || wrong.Error.Code != unknown.Error.Code ||
		strings.ReplaceAll(wrong.Error.Message, info.SessionID, "ID") != strings.ReplaceAll(unknown.Error.Message, "s_doesnotexist", "ID") {
		t.Fatalf("wrong secret and unknown session answer differently:\n%d %+v\n%d %+v", codeWrong, wrong.Error, codeUnknown, unknown.Error)
	}
	// Fifty refusals: counted, not logged one line each.
	for i := 0; i < 47; i++ {
		post(info.SessionID, "Bearer wrong")
	}
	msg := "refused agent requests: unknown session or wrong secret"
	testenv.Await(t, 30*time.Second, "fifty refusals accounted for in the log", func() bool {
		return refusalsLogged(srv.Logs(), msg) == 50
	})
	if n := strings.Count(srv.Logs(), msg); n > 10 {
		t.Errorf("%d log lines for fifty refusals", n)
	}
	p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{}`)})
	p.AwaitDone(turn, 10*time.Second)
}

// Paths that name no file are 404, never 500; an opaque origin is not told
// to try an --allow-origin that can never work.
func TestPathsAndOpaqueOrigin(t *testing.T) {
	srv := testenv.Serve(t, nil)
	for _, path := range []string{"/%c0%ae%c0%ae/etc/passwd", "/..%2f..%2fetc/passwd", "/no-such-file", "/%ff", "/sdk/nope.js"} {
		c, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, srv.Addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil || (resp.StatusCode != 404 && resp.StatusCode != 400) {
			t.Fatalf("GET %s: %v %v", path, err, resp)
		}
		if path == "/%c0%ae%c0%ae/etc/passwd" && resp.StatusCode != 404 {
			t.Fatalf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	_, resp, err := wspage.TryDial(srv.WSURL, "null")
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("origin null: %v %v", err, resp)
	}
	testenv.Await(t, 5*time.Second, "the refusal of origin null", func() bool {
		return strings.Contains(srv.Logs(), "its origin cannot be allowed")
	})
	if strings.Contains(srv.Logs(), "--allow-origin null") {
		t.Errorf("the log advises an --allow-origin that can never work:\n%s", srv.Logs())
	}
}

// `tool-call <tool> -` reads the arguments from stdin, so values that must
// not show in ps stay out of argv; --help says how.
func TestToolCallArgsOnStdin(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	turn, call := awaitPendingCall(t, p, info.SessionID) // keeps the turn open
	env := processEnv(t, testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + info.SessionID)[0])
	counterPage(p)
	cmd := testenvCommand(testenv.Binary(t), env, "tool-call", "--thread-id", info.SessionID, "update_counter", "-")
	cmd.Stdin = strings.NewReader(`{"delta": 41}`)
	out, err := cmd.Output()
	if r := agentSaw(t, string(out)); err != nil || !r.OK || !strings.Contains(string(r.Result), `"value":41`) {
		t.Fatalf("tool-call with arguments on stdin: %v %s", err, out)
	}
	p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{}`)})
	p.AwaitDone(turn, 10*time.Second)
	help, _ := runAgentCommand(t, nil, "tool-call", "--help")
	if !strings.Contains(help, "tool-call <tool> - <<'JSON'") || !strings.Contains(help, "ps") {
		t.Fatalf("tool-call --help does not teach '-':\n%s", help)
	}
}
