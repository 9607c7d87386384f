package mcpbridge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// noTokenMessage says what a missing token means. Core writes its token
// into its own state directory, so no token there is either no Core at
// all or a Core that runs with another --state-dir: Core's /healthz, which
// needs no token, tells the two apart, and a Core that answers is never
// called "not running".
func (b *Bridge) noTokenMessage(ctx context.Context) string {
	if b.coreAnswers(ctx) {
		return "Pedelec Core runs at " + b.CoreURL + ", but there is no token at " + b.tokenPath() +
			": this --state-dir is not the one that Core uses. Pass `pedelec mcp` the --state-dir (or PEDELEC_STATE_DIR) that `pedelec serve` was started with"
	}
	return "Pedelec Core is not running at " + b.CoreURL + " for the state directory " + b.StateDir + " (no token at " + b.tokenPath() +
		"); start it with `pedelec serve` (if it runs with another --state-dir or --addr, pass the same --state-dir and --core-url here): the page's tools appear here when it is up"
}

// coreAnswers reports whether a Pedelec Core answers /healthz at CoreURL.
func (b *Bridge) coreAnswers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.CoreURL+"/healthz", nil)
	if err != nil {
		return false
	}
	// No secret goes with it, so no proof is asked: any Core answers.
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var health struct {
		OK bool `json:"ok"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode == http.StatusOK && json.Unmarshal(data, &health) == nil && health.OK
}

// noToken is the error a call gets when there is no token to send.
func (b *Bridge) noToken(ctx context.Context) *wire.Error {
	return wire.Errorf(wire.CodeCoreUnreachable, "%s", b.noTokenMessage(ctx)).
		WithDetails(map[string]any{"coreUrl": b.CoreURL, "stateDir": b.StateDir})
}
