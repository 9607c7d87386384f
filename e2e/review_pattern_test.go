package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A pattern with a lookahead runs on a backtracking engine with a time
// limit per match; an agent that sends an array of strings built to make
// it backtrack costed Core that limit once per string: one call of 256 KiB
// held a core for over an hour (the hostile review of 2026-12-02). A page
// alone can do it, through the built-in script provider. The limit is for
// the whole call: past it the rest is not matched, and the agent is told
// so.
func TestBacktrackingPatternsBoundedPerCall(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin})
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	skills := `{"tools":[{"name":"scan","description":"Scan words.","inputSchema":{"type":"object",
	  "properties":{"words":{"type":"array","items":{"type":"string","pattern":"^(?=a)(a+)+$"}}},"required":["words"]}}]}`
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(skills), AutoEndOnDisconnect: &autoEnd})
	p.Handle("scan", func(json.RawMessage) any { return map[string]any{"ok": true} })
	words := make([]string, 12)
	for i := range words {
		words[i] = strings.Repeat("a", 40) + "b"
	}
	args, _ := json.Marshal(map[string]any{"words": words})
	turn := p.SendText(info.SessionID, "call scan "+string(args))
	if done := p.AwaitDone(turn, 120*time.Second); !done.OK {
		t.Fatalf("turn: %+v", done.Error)
	}
	r := agentSaw(t, p.Chat(turn))
	if r.Error == nil || r.Error.Code != wire.CodeToolArgsInvalid {
		t.Fatalf("the agent got %+v, want TOOL_ARGS_INVALID", r)
	}
	if !strings.Contains(r.Error.Message, "not checked") {
		t.Fatalf("every one of 12 strings was matched to the end of its time limit; want the call's limit to stop the check and say so: %s", r.Error.Message)
	}
}

// A pattern that compiles too large: "(a)" 20,000 times fits a schema's
// size limit, and each match of a long string against it held gigabytes
// in RE2's matcher (8 such tools, one call each: 12.5 GB of heap, 79 s,
// measured in process; not run here). createSession refuses it, naming
// the pattern, before any call can reach it.
func TestPatternTooLargeRefusedAtCreateSession(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin})
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	pattern := strings.Repeat("(a)", 20000)
	for _, key := range []string{"argsSchema", "inputSchema"} {
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string", "pattern": pattern}}})
		skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", key: json.RawMessage(schema)}}})
		_, werr := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: skills})
		if werr == nil || !strings.Contains(werr.Message, "too large") {
			t.Fatalf("%s with a pattern of 20,000 groups: %v, want it refused as too large", key, werr)
		}
	}
}

// A schema of a kilobyte whose $defs each refer to the next twice in an
// anyOf: one value is checked against 2^30 definitions, hours of Core's
// time and an error tree that grows as fast (20 levels: 32 s for {"x":1},
// measured in process; not run here). createSession refuses it.
func TestRefExpansionRefusedAtCreateSession(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin})
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	defs := map[string]any{"d30": map[string]any{"type": "string"}}
	for i := range 30 {
		next := "#/$defs/d" + itoa(i+1)
		defs["d"+itoa(i)] = map[string]any{"anyOf": []any{map[string]any{"$ref": next}, map[string]any{"$ref": next}}}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}})
	skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", "inputSchema": json.RawMessage(schema)}}})
	_, werr := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: skills})
	if werr == nil || !strings.Contains(werr.Message, "subschemas") {
		t.Fatalf("a schema that checks one value against 2^30 definitions: %v, want it refused", werr)
	}
}
