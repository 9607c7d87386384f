package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

const (
	// DefaultOpenAIBaseURL is Ollama's OpenAI-compatible endpoint.
	DefaultOpenAIBaseURL = "http://127.0.0.1:11434/v1"
	// DefaultOpenAIMaxSteps caps model requests per turn: a model that keeps
	// calling tools ends the turn with STEP_LIMIT_REACHED.
	DefaultOpenAIMaxSteps = 16
	// DefaultOpenAIMaxMessages caps the conversation kept per session; older
	// exchanges are dropped whole, the first prompt (runtime rules and tool
	// index) is always kept.
	DefaultOpenAIMaxMessages = 400
	// maxOpenAIConversationBytes caps the text kept per session the same
	// way: a few large tool results must not pin hundreds of megabytes.
	maxOpenAIConversationBytes = 8 << 20
	// maxOpenAISessions bounds the conversations kept at once; the least
	// recently used is dropped first.
	maxOpenAISessions = 1024
	// openAICheckTimeout keeps list_providers fast when nothing listens.
	openAICheckTimeout = 300 * time.Millisecond
)

// OpenAI is the built-in agent loop: it talks to any OpenAI-compatible
// chat-completions endpoint, gives the session's tools to the model as
// native function tools and runs the model's calls through Core's broker
// (Turn.Calls), so validation, timeouts and statuses are the same as on the
// CLI path. No process and no shell are involved.
//
// The conversation of each session is kept in memory, keyed by session id,
// so a later turn continues it; Forget drops it.
type OpenAI struct {
	settings Settings
	baseURL  string
	// name is the provider's code ("openai", or "ollama" for the same loop
	// with Ollama's defaults) and keyVar the variable its key falls back on.
	name, keyVar string
	// maxSteps caps model requests per turn (settings: args ["--max-steps=N"]).
	maxSteps int
	// MaxMessages caps the messages kept per session (args ["--max-messages=N"]).
	MaxMessages int
	// badSettings makes the provider unavailable, with the reason.
	badSettings string
	client      *http.Client

	mu    sync.Mutex
	convs map[string]*openAIConversation
}

type openAIConversation struct {
	messages []chatMessage
	used     time.Time
}

// NewOpenAI builds the openai provider from its settings: base_url (default
// Ollama on loopback), api_key (else $OPENAI_API_KEY), default_model, and
// args for the loop's limits. executable and env do not apply.
func NewOpenAI(s Settings) Provider { return newOpenAI(s) }

// openaiName is this provider's code; other adapters name the OpenAI API
// by it too (qwen's --auth-type).
const openaiName = "openai"

func init() {
	Register(Spec{Name: openaiName, Title: "OpenAI-compatible endpoint", Rank: 60, New: NewOpenAI})
}

func newOpenAI(s Settings) *OpenAI {
	p := &OpenAI{
		settings:    s,
		baseURL:     strings.TrimRight(s.BaseURL, "/"),
		name:        openaiName,
		keyVar:      "OPENAI_API_KEY",
		maxSteps:    DefaultOpenAIMaxSteps,
		MaxMessages: DefaultOpenAIMaxMessages,
		client:      &http.Client{Transport: openAITransport()},
		convs:       map[string]*openAIConversation{},
	}
	if p.baseURL == "" {
		p.baseURL = DefaultOpenAIBaseURL
	}
	if u, err := url.Parse(p.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.badSettings = fmt.Sprintf("base_url %q is not an http(s) URL", s.BaseURL)
	}
	if err := p.parseArgs(s.Args); err != nil {
		p.badSettings = err.Error()
	}
	return p
}

// openAITransport fails fast on a dead address but sets no overall timeout:
// a local model may take minutes to load and stream; Core's turn deadline
// and ctx bound the wait.
func openAITransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

func (p *OpenAI) parseArgs(args []string) error {
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		var target *int
		switch name {
		case "--max-steps":
			target = &p.maxSteps
		case "--max-messages":
			target = &p.MaxMessages
		default:
			return fmt.Errorf("args: %q is not an openai setting (want --max-steps=N or --max-messages=N)", args[i])
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return fmt.Errorf("args: %s wants a positive integer, not %q", name, value)
		}
		*target = n
	}
	return nil
}

func (p *OpenAI) Name() string { return p.name }

// Check reports the endpoint's availability. A loopback endpoint is probed
// with GET {base}/models within 300 ms; a remote one is not probed (that
// would cost a round trip on every list_providers) and is reported
// available.
func (p *OpenAI) Check(ctx context.Context) wire.ProviderInfo {
	info := wire.ProviderInfo{
		Name:         p.Name(),
		Path:         p.baseURL,
		DefaultModel: p.settings.DefaultModel,
		Description:  "built-in agent loop against an OpenAI-compatible chat-completions endpoint",
	}
	if p.badSettings != "" {
		info.Reason = p.name + " settings: " + p.badSettings
		return info
	}
	if !isLoopbackURL(p.baseURL) {
		info.Available = true
		return info
	}
	ctx, cancel := context.WithTimeout(ctx, openAICheckTimeout)
	defer cancel()
	status, err := p.getModels(ctx)
	switch {
	case err != nil:
		info.Reason = fmt.Sprintf("no model server at %s (%v)", p.baseURL, shortNetError(err))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		info.Reason = fmt.Sprintf("the model server at %s refused the credentials (HTTP %d)", p.baseURL, status)
	default:
		// Any other answer means a server listens; some gateways have no
		// /models, which is no reason to refuse them.
		info.Available = true
	}
	return info
}

func (p *OpenAI) getModels(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.baseURL+"/models", nil)
	if err != nil {
		return 0, err
	}
	p.authorize(req)
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// apiKey is api_key from the settings, else $OPENAI_API_KEY.
func (p *OpenAI) apiKey() string {
	if p.settings.APIKey != "" {
		return p.settings.APIKey
	}
	return os.Getenv(p.keyVar)
}

func (p *OpenAI) authorize(req *http.Request) {
	if key := p.apiKey(); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
}

// SessionForgetter is a provider that keeps per-session state in Core's
// memory. Core calls Forget when a session ends.
type SessionForgetter interface {
	Forget(sessionID string)
}

var _ SessionForgetter = (*OpenAI)(nil)

// Forget drops a session's conversation. Without it the conversation is
// dropped only when the cap on sessions is reached.
func (p *OpenAI) Forget(sessionID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.convs, sessionID)
}

// RunTurn sends the turn's prompt as the next user message and loops: ask the
// model, run the tools it calls, send back their results, until it answers
// without calling a tool or the step cap is reached.
//
// A warm-up turn (prepare) is an ordinary turn: Core sends the first prompt
// with its warm-up message and, once it succeeded, sends later turns only
// the user's message, so the runtime rules and the tool index must already
// be in the conversation. It also makes a local server load the model.
//
// The provider thread id (the session id) is reported only when a turn
// completes: after a failed first turn Core sends the first prompt again,
// and the conversation starts over instead of holding it twice.
func (p *OpenAI) RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	err := p.runTurn(ctx, turn, emit)
	if err != nil && ctx.Err() != nil {
		// Ended, or Core's turn deadline: say which, the same way as the CLI adapters.
		return stoppedTurn(ctx, p.name)
	}
	return err
}

func (p *OpenAI) runTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	if p.badSettings != "" {
		return wire.Errorf(wire.CodeProviderUnavailable, "%s settings: %s", p.name, p.badSettings)
	}
	model := turn.Model // Core filled in Settings.DefaultModel (Check reports it)
	if model == "" {
		return wire.Errorf(wire.CodeModelRequired,
			"the %s provider needs a model: pass createSession({model}) or set default_model under [providers.%s] in the config file (endpoint %s)", p.name, p.name, p.baseURL)
	}
	if turn.Calls == nil && len(turn.Tools) > 0 {
		return wire.Errorf(wire.CodeInternal, "%s: the turn has tools but no broker to call them", p.name)
	}
	names := newToolNames(turn.Tools)
	tools := chatTools(turn.Tools, names)
	system := nativeToolsNote(turn.Tools, names)

	messages := p.history(turn, emit)
	messages = append(messages, chatMessage{Role: "user", Content: turn.Prompt})
	p.save(turn.SessionID, messages)

	for step := 1; step <= p.maxSteps; step++ {
		request := messages
		if system != "" {
			request = append([]chatMessage{{Role: "system", Content: system}}, messages...)
		}
		reply, err := p.complete(ctx, model, request, tools, emit)
		if err != nil {
			return err
		}
		msg := reply.message()
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				// Some servers omit ids; a tool message needs one to answer.
				msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", step, i)
			}
		}
		if len(msg.ToolCalls) == 0 {
			messages = append(messages, msg)
			p.save(turn.SessionID, messages)
			emit(Event{ProviderThreadID: turn.SessionID})
			return nil
		}
		results := make([]chatMessage, 0, len(msg.ToolCalls))
		for _, call := range msg.ToolCalls {
			content, err := p.call(ctx, turn, names, call)
			if err != nil {
				return err
			}
			results = append(results, chatMessage{Role: "tool", ToolCallID: call.ID, Content: content})
		}
		// The assistant's calls and their results are kept together or not
		// at all: a conversation with unanswered calls is refused by servers.
		messages = append(append(messages, msg), results...)
		p.save(turn.SessionID, messages)
	}
	return wire.Errorf(wire.CodeStepLimit,
		"model %q at %s was still calling tools after %d steps; the turn was stopped (raise it with args [\"--max-steps=N\"] under [providers.%s])",
		model, p.baseURL, p.maxSteps, p.name).WithDetails(map[string]any{"maxSteps": p.maxSteps, "model": model})
}

func (p *OpenAI) endpoint() string { return p.baseURL + "/chat/completions" }

// history is the conversation so far. A first turn (no ResumeID) starts a new
// one. A resumed turn whose conversation is gone (Core restarted, or it was
// evicted) starts over with a warning: the model has lost the earlier turns.
func (p *OpenAI) history(turn *Turn, emit func(Event)) []chatMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	conv, ok := p.convs[turn.SessionID]
	if turn.ResumeID == "" || !ok {
		if turn.ResumeID != "" {
			emit(Event{Warning: fmt.Sprintf("openai: the conversation of session %s is no longer in memory; the model starts without the earlier turns", turn.SessionID)})
		}
		return nil
	}
	return append([]chatMessage(nil), conv.messages...)
}

// save stores the conversation, trimmed to MaxMessages, and evicts the least
// recently used session when too many are kept.
func (p *OpenAI) save(sessionID string, messages []chatMessage) {
	messages = trimConversation(messages, p.MaxMessages, maxOpenAIConversationBytes)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.convs[sessionID]; !ok && len(p.convs) >= maxOpenAISessions {
		var oldest string
		var oldestAt time.Time
		for id, c := range p.convs {
			if oldest == "" || c.used.Before(oldestAt) {
				oldest, oldestAt = id, c.used
			}
		}
		delete(p.convs, oldest)
	}
	p.convs[sessionID] = &openAIConversation{messages: append([]chatMessage(nil), messages...), used: time.Now()}
}

// trimConversation keeps at most maxMessages messages and maxBytes of text
// by dropping the oldest exchanges after the first message (the first
// prompt, which carries the runtime rules and the tool index). It cuts only
// before a user message, so no tool result loses its call; the latest turn
// is kept whole even when it alone is over the limits.
func trimConversation(messages []chatMessage, maxMessages, maxBytes int) []chatMessage {
	size := func(m chatMessage) int {
		n := len(m.Content) + len(m.ToolCallID)
		for _, c := range m.ToolCalls {
			n += len(c.ID) + len(c.Function.Name) + len(c.Function.Arguments)
		}
		return n
	}
	total := 0
	for _, m := range messages {
		total += size(m)
	}
	if len(messages) <= maxMessages && total <= maxBytes {
		return messages
	}
	// Walk the cut forward from the oldest exchange; remember the last user
	// message seen, which is the latest cut allowed.
	kept := total
	lastUser := -1
	for i := 1; i < len(messages); i++ {
		if messages[i].Role == "user" {
			lastUser = i
			if 1+len(messages)-i <= maxMessages && kept <= maxBytes {
				return append(messages[:1:1], messages[i:]...)
			}
		}
		kept -= size(messages[i])
	}
	if lastUser > 1 {
		return append(messages[:1:1], messages[lastUser:]...)
	}
	return messages
}

// nativeToolsNote is the system message of every request when the session
// has tools. Core's first prompt is written for agents with a shell (run
// `pedelec-cli ... tool-call <tool> '<json>'`); this model has no shell but
// function tools, so Pedelec's own text says how the one maps to the other.
// It is sent with each request rather than kept in the conversation, so
// trimming never drops it.
func nativeToolsNote(tools []schema.Tool, names toolNames) string {
	if len(tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Pedelec: you have no shell in this session. The page's tools are your functions: " +
		"wherever instructions say to run `pedelec-cli ... tool-call <tool> '<json_args>'`, call the function of that tool " +
		"with the same JSON object as its arguments instead; `tool-spec` is not needed, because each function's parameters are " +
		"the tool's full argument schema. A function returns what the command would print: {\"ok\":true,\"result\":...} " +
		"or, for a Pedelec error, {\"ok\":false,\"error\":{\"code\":...,\"message\":...,\"details\":...}}.")
	var renamed []string
	for _, t := range tools {
		if fn := names.function(t.Name); fn != t.Name {
			renamed = append(renamed, fmt.Sprintf("%s is the function %s", t.Name, fn))
		}
	}
	if len(renamed) > 0 {
		b.WriteString(" Tool names that are not valid function names were renamed: " + strings.Join(renamed, "; ") + ".")
	}
	return b.String()
}

func chatTools(tools []schema.Tool, names toolNames) []chatTool {
	out := make([]chatTool, 0, len(tools))
	for _, t := range tools {
		fn := names.function(t.Name)
		desc := t.Description
		if fn != t.Name {
			// The prompt's tool index names the Pedelec tool; say which it is.
			desc = fmt.Sprintf("%s (Pedelec tool %q)", desc, t.Name)
		}
		params := t.ArgumentsSchema()
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, chatTool{Type: "function", Function: chatFunction{Name: fn, Description: desc, Parameters: params}})
	}
	return out
}

// call runs one tool call through the broker and returns the tool message's
// content: what `pedelec tool-call` would have printed, {"ok":true,"result":...}
// or {"ok":false,"error":{...}}, so the model can tell a Pedelec failure
// (TOOL_ARGS_INVALID with every violation, TOOL_TIMEOUT) from the app's own
// result and correct itself. Only the end of the session or the turn stops
// the loop.
func (p *OpenAI) call(ctx context.Context, turn *Turn, names toolNames, call chatToolCall) (string, error) {
	tool := names.tool(call.Function.Name)
	args := strings.TrimSpace(call.Function.Arguments)
	if args == "" {
		args = "{}"
	}
	var out wire.AgentResult
	if !json.Valid([]byte(args)) {
		out.Error = wire.Errorf(wire.CodeToolArgsInvalid, "the arguments of %s are not valid JSON: %.200q", tool, args)
	} else if turn.Calls == nil {
		out.Error = wire.Errorf(wire.CodeToolNotFound, "this session has no tools; %s does not exist", tool)
	} else {
		result, callErr := turn.Calls.CallTool(ctx, tool, json.RawMessage(args))
		if err := ctx.Err(); err != nil {
			return "", err
		}
		// The model's answer is an edge: the failure goes to it as {code, message, details}.
		werr := wire.AsError(callErr)
		if werr != nil && (werr.Code == wire.CodeSessionEnded || werr.Code == wire.CodeToolCallCancelled) {
			return "", callErr
		}
		if werr != nil {
			out.Error = werr
		} else {
			out.OK = true
			out.Result = result
			if len(bytes.TrimSpace(out.Result)) == 0 {
				out.Result = json.RawMessage("null")
			}
		}
	}
	b, err := wire.AgentResultJSON(out) // the result as the page sent it
	if err != nil {
		// A result the broker accepted is JSON; this is a broken invariant.
		return "", wire.Errorf(wire.CodeInternal, "openai: encode the result of %s: %w", tool, err)
	}
	return string(b), nil
}

// complete sends one chat-completions request and reads its stream, sending
// text deltas to the page as they arrive.
func (p *OpenAI) complete(ctx context.Context, model string, messages []chatMessage, tools []chatTool, emit func(Event)) (*chatReply, error) {
	endpoint := p.endpoint()
	body, err := json.Marshal(chatRequest{Model: model, Messages: messages, Tools: tools, Stream: true})
	if err != nil {
		return nil, wire.Errorf(wire.CodeInternal, "openai: encode the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, wire.Errorf(wire.CodeProviderUnavailable, "openai: bad endpoint %s: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	p.authorize(req)
	resp, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, wire.Errorf(wire.CodeEndpointUnreachable, "the model server at %s cannot be reached (%v); is it running?", p.baseURL, shortNetError(err)).
			WithDetails(map[string]any{"url": endpoint, "model": model})
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, p.httpFailure(resp.StatusCode, errorBodyText(b), endpoint, model)
	}
	reply := newChatReply()
	onText := func(s string) { emit(Event{ChatDelta: s}) }
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "application/json" {
		err = readChatJSON(resp.Body, reply, onText)
	} else {
		err = readChatStream(resp.Body, reply, onText)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		details := map[string]any{"url": endpoint, "model": model}
		var malformed *errMalformed
		var streamErr *errStreamError
		switch {
		case errors.As(err, &malformed):
			return nil, wire.Errorf(wire.CodeBadModelResponse, "the model server at %s sent a malformed answer for model %q: %s", endpoint, model, malformed.reason).WithDetails(details)
		case errors.As(err, &streamErr) && saysModelNotFound(streamErr.message):
			return nil, wire.Errorf(wire.CodeModelNotFound, "model %q not found at %s: %s", model, p.baseURL, streamErr.message).WithDetails(details)
		case errors.As(err, &streamErr):
			return nil, wire.Errorf(wire.CodeProviderError, "the model server at %s failed for model %q: %s", endpoint, model, streamErr.message).WithDetails(details)
		default:
			return nil, wire.Errorf(wire.CodeProviderError, "the connection to the model server at %s broke mid-answer: %w", endpoint, err).WithDetails(details)
		}
	}
	for _, call := range reply.calls {
		if call.Function.Name == "" {
			return nil, wire.Errorf(wire.CodeBadModelResponse, "the model server at %s sent a tool call without a function name for model %q", endpoint, model).
				WithDetails(map[string]any{"url": endpoint, "model": model})
		}
	}
	return reply, nil
}

// httpFailure turns an HTTP error status into the code a page can act on.
func (p *OpenAI) httpFailure(status int, msg, endpoint, model string) *wire.Error {
	details := map[string]any{"url": endpoint, "model": model, "status": status}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return wire.Errorf(wire.CodeAuthFailed, "the model server at %s refused the credentials (HTTP %d: %s); set api_key under [providers.%s] or %s", endpoint, status, msg, p.name, p.keyVar).WithDetails(details)
	case status == http.StatusNotFound || saysModelNotFound(msg):
		return wire.Errorf(wire.CodeModelNotFound, "model %q not found at %s (HTTP %d: %s); check the model name and base_url", model, endpoint, status, msg).WithDetails(details)
	default:
		return wire.Errorf(wire.CodeProviderError, "the model server at %s answered HTTP %d for model %q: %s", endpoint, status, model, msg).WithDetails(details)
	}
}

// shortNetError drops the "Get "url":" prefix url.Error adds; the message
// names the URL already.
func shortNetError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
