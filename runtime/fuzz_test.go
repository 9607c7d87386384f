package runtime

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Whatever an agent-side caller posts, the endpoint answers with one
// AgentResult carrying a code, and never panics.
func FuzzAgentRequest(f *testing.F) {
	core, _ := newTestCore(f)
	h := core.Handler(Assets{})
	for _, seed := range []string{`{"threadId":"s_x","tool":"t","args":{}}`, `{}`, `{"threadId":5}`, `not json`, ``} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, call bool) {
		path := wire.AgentToolSpecPath
		if call {
			path = wire.AgentToolCallPath
		}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+path, bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var res wire.AgentResult
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			t.Fatalf("answer is not JSON: %q", rec.Body.String())
		}
		if !res.OK && (res.Error == nil || res.Error.Code == "") {
			t.Fatalf("failure without a code: %s", rec.Body.String())
		}
	})
}
