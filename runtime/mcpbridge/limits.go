package mcpbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// What one client may make `pedelec mcp` or Core's /mcp hold is bounded
// here, in front of the SDK (issue 20: a 300 MB stdio line, one batch of
// 1,000 tools/list that made a 535 MB answer). docs/mcp.md, "Limits".

// MaxMessageBytes bounds one stdio line, as Core's default
// --max-message-bytes bounds a page's frame and a POST to /mcp.
const MaxMessageBytes = 1 << 20

// MaxBatchMessages bounds the messages of one JSON-RPC batch (MCP
// 2025-03-26 and before), as a page's WebSocket batches are bounded
// (wire.MaxBatchFrames): each call of a batch runs at once, and the SDK
// answers a stdio batch in one line, so the count bounds both the work one
// payload starts and the answer it makes.
const MaxBatchMessages = wire.MaxBatchFrames

// CodeMessageTooLarge answers a stdio line longer than MaxMessageBytes
// (id null: the line was not read); data {limit, size}.
const CodeMessageTooLarge = -32001

// refusal is a JSON-RPC error answer made here rather than by the SDK,
// for a payload the SDK is not given. Its id is the message's when it could
// be read, else null.
type refusal struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc.Error  `json:"error"`
}

func refuse(id json.RawMessage, code int64, data map[string]any, format string, args ...any) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	out, _ := json.Marshal(refusal{JSONRPC: "2.0", ID: id, Error: e})
	return out
}

// checkBatch refuses a batch of more than MaxBatchMessages, whole: none of
// it runs. Anything else passes (nil), for the SDK to judge.
func checkBatch(payload []byte) []byte {
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 || payload[0] != '[' {
		return nil
	}
	var msgs []json.RawMessage
	if json.Unmarshal(payload, &msgs) != nil || len(msgs) <= MaxBatchMessages {
		return nil
	}
	return refuse(nil, jsonrpc.CodeInvalidRequest, map[string]any{"limit": MaxBatchMessages, "messages": len(msgs)},
		"a batch of %d messages; at most %d per batch", len(msgs), MaxBatchMessages)
}

// checkMessages answers, in place of the SDK, a stdio payload the SDK
// would end the session over: JSON that does not parse, a batch that is
// empty or too long, a message that is not JSON-RPC 2.0. A client's
// mistake then costs it one error answer, as JSON-RPC has it, and the
// session goes on. nil: the payload goes to the SDK.
func checkMessages(payload []byte) []byte {
	payload = bytes.TrimSpace(payload)
	if !json.Valid(payload) {
		var v any
		err := json.Unmarshal(payload, &v)
		return refuse(nil, jsonrpc.CodeParseError, nil, "the message is not valid JSON: %v", err)
	}
	if payload[0] != '[' {
		if _, err := jsonrpc.DecodeMessage(payload); err != nil {
			return refuse(readableID(payload), jsonrpc.CodeInvalidRequest, nil, "not a JSON-RPC 2.0 message: %v", err)
		}
		return nil
	}
	if answer := checkBatch(payload); answer != nil {
		return answer
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(payload, &msgs); err != nil {
		return refuse(nil, jsonrpc.CodeInvalidRequest, nil, "a batch must be an array of messages: %v", err)
	}
	if len(msgs) == 0 {
		return refuse(nil, jsonrpc.CodeInvalidRequest, nil, "an empty batch")
	}
	for i, raw := range msgs {
		if _, err := jsonrpc.DecodeMessage(raw); err != nil {
			return refuse(nil, jsonrpc.CodeInvalidRequest, nil, "message %d of the batch is not a JSON-RPC 2.0 message: %v", i+1, err)
		}
	}
	return nil
}

// readableID is the message's id if it is a string or a number, else nil.
func readableID(msg []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &probe) != nil {
		return nil
	}
	var v any
	if json.Unmarshal(probe.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return probe.ID
	}
	return nil
}

// unbatchNotifications splits a stdio batch that holds notifications into
// runs, in order: each notification alone, each run of other messages a
// batch of its own. The SDK (v1.8.0) waits for an answer to every request
// of a stdio batch, notifications included, so a batch with one is never
// answered; split, each call is answered (in one array per run) and each
// notification handled in its place. Anything else comes back as is.
func unbatchNotifications(payload []byte) [][]byte {
	trimmed := bytes.TrimSpace(payload)
	var msgs []json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &msgs) != nil {
		return [][]byte{payload}
	}
	isNotification := func(raw json.RawMessage) bool {
		m, err := jsonrpc.DecodeMessage(raw)
		req, ok := m.(*jsonrpc.Request)
		return err == nil && ok && !req.IsCall()
	}
	if !slices.ContainsFunc(msgs, isNotification) {
		return [][]byte{payload}
	}
	var (
		out [][]byte
		run []json.RawMessage
	)
	flush := func() {
		if len(run) > 0 {
			b, _ := json.Marshal(run)
			out = append(out, b)
			run = nil
		}
	}
	for _, raw := range msgs {
		if isNotification(raw) {
			flush()
			out = append(out, raw)
			continue
		}
		run = append(run, raw)
	}
	flush()
	return out
}

// decodeMessage is jsonrpc.DecodeMessage for a line json.Valid accepted.
// A request of the usual shape (the keys jsonrpc "2.0", id, method and
// params, nothing else) is decoded here, with encoding/json: the SDK's
// JSON package allocates two 32 KB buffers for each decode, which made
// most of what `pedelec mcp` allocated per call. Anything else (answers
// to the server's pings, a key spelled otherwise) is the SDK's to decode.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
		return jsonrpc.DecodeMessage(data)
	}
	method, hasMethod := m["method"]
	if !hasMethod || len(method) == 0 || method[0] != '"' {
		return jsonrpc.DecodeMessage(data)
	}
	for k := range m {
		switch k {
		case "jsonrpc", "id", "method", "params":
		default:
			return jsonrpc.DecodeMessage(data)
		}
	}
	req := &jsonrpc.Request{Params: m["params"]}
	if json.Unmarshal(method, &req.Method) != nil {
		return jsonrpc.DecodeMessage(data)
	}
	if raw, ok := m["id"]; ok {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return jsonrpc.DecodeMessage(data)
		}
		id, err := jsonrpc.MakeID(v) // nil, a number or a string
		if err != nil {
			return nil, err
		}
		req.ID = id
	}
	return req, nil
}
