package runtime

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:7077": true, "127.3.2.1": true, "localhost:7077": true, "LOCALHOST": true, "app.localhost:80": true,
		"[::1]:7077": true, "::1": true, "localhost.:7077": true,
		"evil.example:7077": false, "127.0.0.1.evil.example": false, "10.0.0.1:7077": false, "0.0.0.0:7077": false,
		"localhost.evil.example": false, "": false,
	} {
		if got := isLoopbackHost(host); got != want {
			t.Errorf("isLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	c := &Core{opts: Options{AllowOrigins: []string{"http://localhost:*", "https://app.example.com", "https://*.corp.example"}}}
	cases := []struct {
		origin, host string
		want         bool
	}{
		{"", "127.0.0.1:7077", true}, // a non-browser client
		{"http://127.0.0.1:7077", "127.0.0.1:7077", true},
		{"http://localhost:7077", "localhost:7077", true},
		{"http://127.0.0.1:9999", "127.0.0.1:7077", false}, // another local port is another origin
		{"http://localhost:5173", "127.0.0.1:7077", true},
		{"https://app.example.com", "127.0.0.1:7077", true},
		{"https://APP.example.com", "127.0.0.1:7077", true},
		{"https://app.example.com.evil.io", "127.0.0.1:7077", false},
		{"https://x.corp.example", "127.0.0.1:7077", true},
		{"http://evil.example", "127.0.0.1:7077", false},
		{"null", "127.0.0.1:7077", false},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "http://"+tc.host+"/ws", nil)
		r.Host = tc.host
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if _, got := c.originAllowed(r); got != tc.want {
			t.Errorf("origin %q on host %q: allowed=%v, want %v", tc.origin, tc.host, got, tc.want)
		}
	}
}

// The Core token counts only as a Bearer credential (the scheme in any
// case, RFC 9110): the bare token, or another scheme, is refused on every
// endpoint that takes it (issue 20).
func TestCoreTokenOnlyAsBearer(t *testing.T) {
	core, srv := newTestCore(t)
	for _, path := range []string{DebugPath, wire.MCPToolsPath, wire.MCPPath} {
		for _, tc := range []struct {
			auth string
			want bool
		}{
			{"Bearer " + core.token, true},
			{"bearer " + core.token, true},
			{"BEARER  " + core.token, true},
			{core.token, false},
			{"Basic " + core.token, false},
			{"Bearer", false},
			{"Bearer " + core.token + "x", false},
			{"Bearer" + core.token, false},
			{"", false},
		} {
			method := "GET"
			if path == wire.MCPPath {
				method = "DELETE" // answered without a body or an MCP session: 401 or not
			}
			req, _ := http.NewRequest(method, srv.URL+path+"?after=-1", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := resp.StatusCode != http.StatusUnauthorized; got != tc.want {
				t.Errorf("%s %s with Authorization %q: %d %s", method, path, strings.Replace(tc.auth, core.token, "<token>", 1), resp.StatusCode, body)
			}
		}
	}
}
