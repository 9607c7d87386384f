package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object)
// and the MCP ones this server sends.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeUnsupportedProtocolVersion is MCP's answer to a request made in a
	// protocol revision this server does not speak (SEP-2575); its data
	// lists the versions it does, so a client can fall back to initialize.
	CodeUnsupportedProtocolVersion = -32022
	// CodeMessageTooLarge answers a stdio line longer than MaxMessageBytes
	// (id null: the line was not read); data {limit, size}.
	CodeMessageTooLarge = -32001
	// CodeAnswerTooLarge answers a call of a batch whose answers already
	// add up to maxBatchAnswerBytes; data {limit, size}. The call ran; the
	// client may send it again alone.
	CodeAnswerTooLarge = -32002
)

// MaxMessageBytes bounds one stdio line, as Core's default
// --max-message-bytes bounds a page's frame and a POST to /mcp.
const MaxMessageBytes = 1 << 20

// MaxBatchMessages bounds the messages of one JSON-RPC batch, as a page's
// WebSocket batches are bounded (wire.MaxBatchFrames): each call of a
// batch runs at once, so the count bounds the work one payload starts.
const MaxBatchMessages = wire.MaxBatchFrames

// maxBatchAnswerBytes bounds what one batch's answers add up to past the
// first answer: 1,000 tools/list in 55 KB of batch made 535 MB of answer.
// 4 MiB holds several full pages of tools; a client that needs more sends
// its calls apart.
const maxBatchAnswerBytes = 4 << 20

func errorWithData(code int, data map[string]any, format string, args ...any) *Error {
	e := errorf(code, format, args...)
	e.Data, _ = json.Marshal(data)
	return e
}

// batchBudget holds one batch's answers to maxBatchAnswerBytes. The first
// answer always passes, so a batch of one behaves as the message alone.
type batchBudget struct {
	mu   sync.Mutex
	used int
}

// fit returns answer, or in its place the CodeAnswerTooLarge error for the
// call with id when the batch's answers are already past the budget.
func (b *batchBudget) fit(id json.RawMessage, answer []byte) []byte {
	if answer == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used > 0 && b.used+len(answer) > maxBatchAnswerBytes {
		answer = encodeResponse(id, nil, errorWithData(CodeAnswerTooLarge, map[string]any{"limit": maxBatchAnswerBytes, "size": len(answer)},
			"the answer (%d bytes) would take this batch's answers past %d bytes; send this request alone", len(answer), maxBatchAnswerBytes))
	}
	b.used += len(answer)
	return answer
}

// Error is a JSON-RPC error object. It is also a Go error, so a method
// handler returns it as is.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// message is any incoming JSON-RPC message: a call (method and id), a
// notification (method, no id) or a response (id and result or error; this
// server sends no requests, so responses are ignored).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// isCall reports whether m expects a response. MCP forbids a null id, so
// `"id": null` is not a call (parseMessage refuses it).
func (m *message) isCall() bool { return m.Method != "" && len(m.ID) > 0 }

func (m *message) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// concurrent reports whether a transport may run m beside the messages
// after it: calls other than initialize. initialize and notifications run
// in order, so a notifications/cancelled finds the call it cancels and a
// call after initialize sees the session initialized.
func (m *message) concurrent() bool { return m.isCall() && m.Method != methodInitialize }

// idKey is the id as a map key: its JSON text, so 1 and "1" stay distinct,
// as JSON-RPC wants.
func (m *message) idKey() string { return string(m.ID) }

// response is one outgoing JSON-RPC response. Result is always present on
// success (an empty result is {}), Error on failure.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// notification is one outgoing JSON-RPC notification.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

var nullID = json.RawMessage("null")

// encodeResponse marshals the response to a call with id. err, when not
// nil, wins over result; an error that is not an *Error becomes an
// internal error, so nothing a handler returns is lost.
func encodeResponse(id json.RawMessage, result any, err error) []byte {
	if len(id) == 0 {
		id = nullID
	}
	r := response{JSONRPC: "2.0", ID: id}
	if err != nil {
		werr, ok := err.(*Error)
		if !ok {
			werr = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		r.Error = werr
	} else {
		if result == nil {
			result = struct{}{}
		}
		r.Result = result
	}
	data, merr := json.Marshal(r)
	if merr != nil { // a result that does not marshal is a bug here, not the client's
		data, _ = json.Marshal(response{JSONRPC: "2.0", ID: id, Error: errorf(CodeInternalError, "encode the result: %v", merr)})
	}
	return data
}

func encodeNotification(method string, params any) []byte {
	if params == nil {
		params = struct{}{}
	}
	data, _ := json.Marshal(notification{JSONRPC: "2.0", Method: method, Params: params})
	return data
}

// splitPayload splits one transport payload (a stdio line, an HTTP body)
// into its messages: one, or the elements of a batch. A payload that is not
// JSON is a parse error (-32700); an empty batch is an invalid request.
func splitPayload(data []byte) (msgs []json.RawMessage, batch bool, err *Error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		if jerr := json.Unmarshal(data, &msgs); jerr != nil {
			return nil, true, errorf(CodeParseError, "the batch is not valid JSON: %v", jerr)
		}
		if len(msgs) == 0 {
			return nil, true, errorf(CodeInvalidRequest, "an empty batch")
		}
		if len(msgs) > MaxBatchMessages {
			return nil, true, errorWithData(CodeInvalidRequest, map[string]any{"limit": MaxBatchMessages, "messages": len(msgs)},
				"a batch of %d messages; at most %d per batch", len(msgs), MaxBatchMessages)
		}
		return msgs, true, nil
	}
	if !json.Valid(data) {
		var v any
		jerr := json.Unmarshal(data, &v)
		return nil, false, errorf(CodeParseError, "the message is not valid JSON: %v", jerr)
	}
	return []json.RawMessage{data}, false, nil
}

// parseMessage decodes one message and checks the JSON-RPC envelope. On
// failure it returns whatever id it could read, for the error response.
func parseMessage(raw json.RawMessage) (*message, *Error) {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(raw, &probe)
		m.ID = validID(probe.ID)
		return &m, errorf(CodeInvalidRequest, "not a JSON-RPC message: %v", err)
	}
	if m.JSONRPC != "2.0" {
		m.ID = validID(m.ID)
		return &m, errorf(CodeInvalidRequest, `"jsonrpc" must be "2.0", got %q`, m.JSONRPC)
	}
	if len(m.ID) > 0 && validID(m.ID) == nil {
		m.ID = nil
		return &m, errorf(CodeInvalidRequest, "the id must be a string or a number")
	}
	if m.Method == "" && len(m.ID) == 0 {
		return &m, errorf(CodeInvalidRequest, "a message needs a method or an id")
	}
	return &m, nil
}

// validID returns id if it is a JSON string or number, else nil.
func validID(id json.RawMessage) json.RawMessage {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return id
	}
	return nil
}
