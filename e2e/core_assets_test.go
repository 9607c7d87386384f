package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// Core serves the embedded SDK, byte for byte the committed dist, with CORS
// headers so a page on any origin can import it; the demo at /; /healthz.
func TestServesSDKDemoAndHealth(t *testing.T) {
	srv := testenv.Serve(t, nil)
	get := func(path, origin string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	for path, file := range map[string]string{"/sdk/pedelec.js": "pedelec.js", "/sdk/pedelec.d.ts": "pedelec.d.ts", "/sdk/webmcp.js": "webmcp.js"} {
		resp, body := get(path, "http://some-app.example")
		want, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "sdk", "dist", file))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || !bytes.Equal(body, want) {
			t.Errorf("%s: HTTP %d, %d bytes; want the committed dist (%d bytes)", path, resp.StatusCode, len(body), len(want))
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS header: %v", path, resp.Header)
		}
	}
	if resp, _ := get("/sdk/pedelec.js", ""); !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("the module's Content-Type is %q; browsers refuse to import other types", resp.Header.Get("Content-Type"))
	}
	if resp, _ := get("/sdk/other.js", ""); resp.StatusCode != 404 {
		t.Errorf("/sdk/other.js: HTTP %d", resp.StatusCode)
	}
	if resp, body := get("/", ""); resp.StatusCode != 200 || !strings.Contains(string(body), "/sdk/pedelec.js") && !strings.Contains(string(body), "<script") {
		t.Errorf("demo page: HTTP %d %.200s", resp.StatusCode, body)
	}
	resp, body := get("/healthz", "")
	var health struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
	}
	if json.Unmarshal(body, &health); resp.StatusCode != 200 || !health.OK || health.Version == "" {
		t.Errorf("/healthz: HTTP %d %s", resp.StatusCode, body)
	}
}
