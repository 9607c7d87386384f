package provider

import (
	"context"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/kaoruisaac/pedelec/runtime/peercred"
)

// The warm-up: opencode does about a second of CPU work at a directory's
// first prompt, not at session/new ("booting location services": its tool
// registry, file finder and watcher for the directory, kept for an hour),
// so a first turn after the early start still paid it (1-5 s on this
// 2-core machine). An early start of opencode therefore prompts a second,
// throw-away ACP session in the same directory whose model is the warm-up
// model below, a loopback endpoint inside Core that answers every request
// at once with "ok": the agent boots the directory's services for it, no
// model of the user's is asked anything, and the session's own
// conversation is untouched. The real session's first prompt then finds
// the services up.

// warmupProvider and warmupModel name the warm-up model in opencode's
// config.
const (
	warmupProvider = "pedelecwarmup"
	warmupModel    = "warmup"
)

// warmupWait bounds the warm-up prompt: it costs what the first prompt
// would, and a turn waiting for the early start waits for it too.
const warmupWait = 60 * time.Second

var warmupServer = sync.OnceValues(func() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	// Only opencode, Core's own child, has business here: another local
	// user's connection is closed at accept, as on Core's own port, so it
	// can neither use the endpoint nor hold Core's descriptors open; an
	// idle connection of opencode's is closed after a while.
	srv := &http.Server{Handler: http.HandlerFunc(answerWarmup), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() { _ = srv.Serve(peercred.New(peercred.Options{UID: os.Getuid()}).Listener(ln)) }()
	return "http://" + ln.Addr().String() + "/v1", nil
})

// answerWarmup is a whole streamed chat completion saying "ok", whatever
// was asked.
func answerWarmup(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write([]byte(`data: {"id":"warmup","object":"chat.completion.chunk","created":0,"model":"` + warmupModel + `","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"warmup","object":"chat.completion.chunk","created":0,"model":"` + warmupModel + `","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n" +
		"data: [DONE]\n\n"))
}

// opencodeWarmupProvider is the warm-up model's entry in opencode's
// config, or nil if its endpoint could not listen.
func opencodeWarmupProvider() map[string]any {
	url, err := warmupServer()
	if err != nil {
		return nil
	}
	return map[string]any{
		"npm": "@ai-sdk/openai-compatible", "name": "Pedelec warm-up (answers ok, asks no model)",
		"options": map[string]any{"baseURL": url, "apiKey": "warmup"},
		"models":  map[string]any{warmupModel: map[string]any{"name": warmupModel}},
	}
}

// opencodeWarmUp prompts a throw-away session of w's agent in the same
// directory against the warm-up model. Its failure is not the start's:
// the first prompt then pays the work itself.
func opencodeWarmUp(ctx context.Context, w *acpWarm, turn *Turn) {
	ctx, cancel := context.WithTimeout(ctx, warmupWait)
	defer cancel()
	ns, err := w.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: turn.WorkDir, McpServers: []acp.McpServer{}})
	if err != nil {
		return
	}
	w.bound.allowSession(ns.SessionId)
	if _, err := w.conn.UnstableSetSessionModel(ctx, acp.UnstableSetSessionModelRequest{SessionId: ns.SessionId, ModelId: acp.UnstableModelId(warmupProvider + "/" + warmupModel)}); err != nil {
		return
	}
	_, _ = w.conn.Prompt(ctx, acp.PromptRequest{SessionId: ns.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("ok")}})
}
