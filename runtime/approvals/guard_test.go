package approvals

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func guarded(t *testing.T, action bool) (*httptest.Server, *Guard) {
	g := &Guard{Token: "tok", RefuseAgent: AgentRefusal}
	srv := httptest.NewServer(g.API(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }), action))
	t.Cleanup(srv.Close)
	return srv, g
}

func TestGuardRefusesOtherOriginsAndMissingToken(t *testing.T) {
	srv, _ := guarded(t, true)
	self := srv.URL // http://127.0.0.1:port: Core's own origin
	for _, tc := range []struct {
		name    string
		headers map[string]string
		ok      bool
	}{
		{"cli with bearer", map[string]string{"Authorization": "Bearer tok"}, true},
		{"own page with header", map[string]string{HeaderApprover: "tok", "Origin": self, "Sec-Fetch-Site": "same-origin"}, true},
		{"no token", map[string]string{"Origin": self}, false},
		{"wrong token", map[string]string{HeaderApprover: "nope"}, false},
		{"other origin with token", map[string]string{HeaderApprover: "tok", "Origin": "https://evil.example"}, false},
		{"cross-site fetch with token", map[string]string{HeaderApprover: "tok", "Sec-Fetch-Site": "cross-site"}, false},
		{"same-site fetch", map[string]string{HeaderApprover: "tok", "Sec-Fetch-Site": "same-site"}, false},
		{"localhost page against 127.0.0.1", map[string]string{HeaderApprover: "tok", "Origin": strings.Replace(self, "127.0.0.1", "localhost", 1)}, false},
	} {
		req, _ := http.NewRequest("POST", srv.URL, nil)
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.StatusCode == 200; got != tc.ok {
			t.Errorf("%s: status %d %s", tc.name, resp.StatusCode, body)
		}
		if !tc.ok && !strings.Contains(string(body), "APPROVER_NOT_ALLOWED") {
			t.Errorf("%s: body %s", tc.name, body)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: framing headers %v", tc.name, resp.Header)
		}
	}
}

func TestGuardPageOnlyAsItsOwnWindow(t *testing.T) {
	g := &Guard{Token: "tok"}
	srv := httptest.NewServer(g.Page(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })))
	defer srv.Close()
	for dest, ok := range map[string]bool{"": true, "document": true, "iframe": false, "frame": false, "script": false, "empty": false, "object": false} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if dest != "" {
			req.Header.Set("Sec-Fetch-Dest", dest)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if (resp.StatusCode == 200) != ok {
			t.Errorf("dest %q: %d", dest, resp.StatusCode)
		}
		if resp.Header.Get("Cross-Origin-Opener-Policy") != "same-origin" || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("dest %q: headers %v", dest, resp.Header)
		}
	}
}

// A process whose environment (or whose parent's) carries an agent
// variable is refused even with the token; the test binary itself is not.
func TestGuardRefusesAgentProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process walk is Linux's")
	}
	if url := os.Getenv("APPROVALS_TEST_POST"); url != "" {
		req, _ := http.NewRequest("POST", url, nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("status", resp.StatusCode)
		os.Exit(0)
	}
	srv, _ := guarded(t, true)
	run := func(env []string, viaShell bool) string {
		var cmd *exec.Cmd
		if viaShell {
			// The agent's shell starts a child without the variables.
			cmd = exec.Command("sh", "-c", "env -u PEDELEC_THREAD_ID -u PEDELEC_AGENT_SECRET \"$0\" -test.run=TestGuardRefusesAgentProcesses", os.Args[0])
		} else {
			cmd = exec.Command(os.Args[0], "-test.run=TestGuardRefusesAgentProcesses")
		}
		cmd.Env = append(os.Environ(), append(env, "APPROVALS_TEST_POST="+srv.URL)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run(nil, false); !strings.Contains(got, "status 200") {
		t.Fatalf("plain process: %s", got)
	}
	if got := run([]string{"PEDELEC_AGENT_SECRET=x"}, false); !strings.Contains(got, "status 403") {
		t.Fatalf("agent process: %s", got)
	}
	if got := run([]string{"PEDELEC_THREAD_ID=s_1"}, true); !strings.Contains(got, "status 403") {
		t.Fatalf("agent's child: %s", got)
	}
}

// Read (the console's page, files, feed and records) answers Core's own
// pages and programs, never another origin or a link from another site,
// and every answer carries the strict policy.
func TestGuardReadOnlyFromCoresOwnPages(t *testing.T) {
	var refused []string
	g := &Guard{Token: "tok", OnRefuse: func(_ *http.Request, why string) { refused = append(refused, why) }}
	srv := httptest.NewServer(g.Read(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "feed") })))
	defer srv.Close()
	self := srv.URL
	for _, tc := range []struct {
		name         string
		origin, site string
		ok           bool
	}{
		{"typed in the address bar", "", "none", true},
		{"a program", "", "", true},
		{"the console's own fetch", self, "same-origin", true},
		{"another origin", "http://evil.test", "cross-site", false},
		{"another port of localhost", "http://127.0.0.1:1", "same-site", false},
		{"a link from another site", "", "cross-site", false},
		{"an opaque origin", "null", "cross-site", false},
	} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.site != "" {
			req.Header.Set("Sec-Fetch-Site", tc.site)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if (resp.StatusCode == 200) != tc.ok {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
		if !tc.ok && !strings.Contains(string(body), "ORIGIN_NOT_ALLOWED") {
			t.Errorf("%s: body %s", tc.name, body)
		}
		h := resp.Header
		if h.Get("Content-Security-Policy") != CSP || h.Get("X-Frame-Options") != "DENY" || h.Get("Cross-Origin-Resource-Policy") != "same-origin" ||
			h.Get("Cross-Origin-Opener-Policy") != "same-origin" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: headers %v", tc.name, h)
		}
	}
	if len(refused) != 4 {
		t.Errorf("OnRefuse heard %d refusals, want 4: %v", len(refused), refused)
	}
	// The policy allows no inline script and no framing.
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "form-action 'none'", "default-src 'none'"} {
		if !strings.Contains(CSP, want) {
			t.Errorf("CSP lacks %s", want)
		}
	}
}
