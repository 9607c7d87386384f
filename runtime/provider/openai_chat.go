package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The chat-completions wire format, only the fields Pedelec sends or reads.
// Servers add fields freely (usage, logprobs, reasoning); they are ignored.

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []chatTool    `json:"tools,omitempty"`
	Stream   bool          `json:"stream"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is always sent, empty for an assistant message that only
	// calls tools: some servers refuse a message without it.
	Content    string         `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatFunctionCall `json:"function"`
}

type chatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatChunk is one streamed event, or (with Message set) a whole
// non-streamed completion from a server that ignored stream:true.
type chatChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string              `json:"content"`
			ToolCalls []chatToolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		Message *struct {
			Content   string         `json:"content"`
			ToolCalls []chatToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

type chatToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatReply is one assistant message, assembled from its stream.
type chatReply struct {
	text  strings.Builder
	calls map[int]*chatToolCall
	order []int
	// finished is true once the stream said it was complete ([DONE] or a
	// finish_reason), so a cut-off stream is told apart from a short one.
	finished bool
}

func newChatReply() *chatReply { return &chatReply{calls: map[int]*chatToolCall{}} }

// toolCalls lists the calls in index order.
func (r *chatReply) toolCalls() []chatToolCall {
	idx := append([]int(nil), r.order...)
	sort.Ints(idx)
	calls := make([]chatToolCall, 0, len(idx))
	for _, i := range idx {
		calls = append(calls, *r.calls[i])
	}
	return calls
}

func (r *chatReply) message() chatMessage {
	return chatMessage{Role: "assistant", Content: r.text.String(), ToolCalls: r.toolCalls()}
}

// callAt is the call at index i, created on first sight.
func (r *chatReply) callAt(i int) *chatToolCall {
	call, ok := r.calls[i]
	if !ok {
		call = &chatToolCall{Type: "function"}
		r.calls[i] = call
		r.order = append(r.order, i)
	}
	return call
}

// addToolCallDeltas accumulates streamed fragments: the first fragment of a
// call carries its id and name, later ones only more of its arguments.
func (r *chatReply) addToolCallDeltas(deltas []chatToolCallDelta) {
	for pos, d := range deltas {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		call := r.callAt(i)
		if d.ID != "" {
			call.ID = d.ID
		}
		call.Function.Name += d.Function.Name
		call.Function.Arguments += d.Function.Arguments
	}
}

// errStreamError is a model server's error reported inside a 200 stream.
type errStreamError struct{ message string }

func (e *errStreamError) Error() string { return e.message }

// errMalformed is a stream Pedelec cannot read.
type errMalformed struct{ reason string }

func (e *errMalformed) Error() string { return e.reason }

// readChatStream reads a server-sent-events body into reply, calling onText
// for every text delta as it arrives. It returns an *errMalformed for a body
// that is not a chat-completions stream, an *errStreamError for an error the
// server put in the stream, and the read error when the connection failed.
func readChatStream(body io.Reader, reply *chatReply, onText func(string)) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []string
	dispatch := func() (done bool, err error) {
		if len(data) == 0 {
			return false, nil
		}
		payload := strings.Join(data, "\n")
		data = data[:0]
		if strings.TrimSpace(payload) == "[DONE]" {
			reply.finished = true
			return true, nil
		}
		return false, applyChunk([]byte(payload), reply, onText)
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if done, err := dispatch(); done || err != nil {
				return err
			}
		case strings.HasPrefix(line, ":"):
			// A comment (keep-alive).
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case strings.HasPrefix(line, "event:"), strings.HasPrefix(line, "id:"), strings.HasPrefix(line, "retry:"):
		default:
			return &errMalformed{reason: fmt.Sprintf("not a server-sent-events line: %.200q", line)}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &errMalformed{reason: "an event is longer than 16 MiB"}
		}
		return err
	}
	if _, err := dispatch(); err != nil {
		return err
	}
	if !reply.finished {
		return &errMalformed{reason: "the stream ended before [DONE]"}
	}
	return nil
}

// readChatJSON reads a whole (non-streamed) completion.
func readChatJSON(body io.Reader, reply *chatReply, onText func(string)) error {
	b, err := io.ReadAll(io.LimitReader(body, 16<<20))
	if err != nil {
		return err
	}
	if err := applyChunk(bytes.TrimSpace(b), reply, onText); err != nil {
		return err
	}
	reply.finished = true
	return nil
}

func applyChunk(payload []byte, reply *chatReply, onText func(string)) error {
	var chunk chatChunk
	if err := json.Unmarshal(payload, &chunk); err != nil {
		return &errMalformed{reason: fmt.Sprintf("an event is not JSON (%v): %.200q", err, payload)}
	}
	if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
		return &errStreamError{message: errorText(chunk.Error)}
	}
	for _, c := range chunk.Choices {
		if c.Index != 0 {
			continue // Pedelec asks for one choice; ignore any others
		}
		if c.Message != nil {
			if c.Message.Content != "" {
				reply.text.WriteString(c.Message.Content)
				onText(c.Message.Content)
			}
			for i, call := range c.Message.ToolCalls {
				*reply.callAt(i) = call
			}
		}
		if c.Delta.Content != "" {
			reply.text.WriteString(c.Delta.Content)
			onText(c.Delta.Content)
		}
		reply.addToolCallDeltas(c.Delta.ToolCalls)
		if c.FinishReason != nil && *c.FinishReason != "" {
			reply.finished = true
		}
	}
	return nil
}

// errorText extracts a person-readable message from an error value in any
// of the shapes servers use: {"message":...}, a bare string, or anything else.
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		if code, ok := obj.Code.(string); ok && code != "" && !strings.Contains(obj.Message, code) {
			return obj.Message + " (" + code + ")"
		}
		return obj.Message
	}
	return string(raw)
}

// errorBodyText is the message of an HTTP error body: {"error":...} when it
// is JSON, else the start of the body itself.
func errorBodyText(body []byte) string {
	body = bytes.TrimSpace(body)
	var wrapped struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &wrapped) == nil && len(wrapped.Error) > 0 {
		return errorText(wrapped.Error)
	}
	if len(body) > 500 {
		body = append(body[:500:500], "…"...)
	}
	return string(body)
}

// saysModelNotFound recognises the ways servers say a model does not exist
// (OpenAI's model_not_found, Ollama's `model "x" not found`), whatever the
// status code they chose.
func saysModelNotFound(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "model_not_found") ||
		(strings.Contains(m, "model") && (strings.Contains(m, "not found") || strings.Contains(m, "does not exist")))
}
