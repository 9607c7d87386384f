package runtime

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
)

func TestParsePublicURL(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                  "",
		"https://name-7077.app.github.dev":  "https://name-7077.app.github.dev",
		"https://Name-7077.App.github.dev/": "https://name-7077.app.github.dev",
		"https://devbox.test:8443":          "https://devbox.test:8443",
		"http://devbox.test:8080":           "http://devbox.test:8080",
	} {
		u, err := ParsePublicURL(raw)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != want {
			t.Errorf("ParsePublicURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"ftp://x", "https://", "https://u:p@x", "https://x/path", "https://x/?q=1", "x.example", "https://x#f"} {
		if _, err := ParsePublicURL(raw); err == nil {
			t.Errorf("ParsePublicURL(%q) accepted", raw)
		}
	}
}

// Through a forward: the forwarded name is accepted and its origin is
// Core's own; every other name and origin stays refused; links follow the
// address the browser used.
func TestPublicURLRules(t *testing.T) {
	public, _ := ParsePublicURL("https://devbox.test:8443")
	c := &Core{publicURL: public, coreURL: "http://127.0.0.1:7077", opts: Options{AllowOrigins: []string{"http://localhost:5173"}}}
	guard := &approvals.Guard{SelfOrigin: c.ownOrigin}
	for _, tc := range []struct {
		host, origin       string
		hostOK, originOK   bool
		own, base, refusal string
	}{
		// The HTTPS forward, with or without the port in Host.
		{"devbox.test:8443", "https://devbox.test:8443", true, true, "https://devbox.test:8443", "https://devbox.test:8443", ""},
		{"devbox.test", "https://devbox.test:8443", true, true, "https://devbox.test:8443", "https://devbox.test:8443", ""},
		{"DEVBOX.test.", "https://devbox.test:8443", true, true, "https://devbox.test:8443", "https://devbox.test:8443", ""},
		// The forwarded name over plain http is another origin.
		{"devbox.test:8443", "http://devbox.test:8443", true, false, "https://devbox.test:8443", "https://devbox.test:8443", "another origin"},
		// ssh -L on another local port: loopback, its own origin.
		{"127.0.0.1:17077", "http://127.0.0.1:17077", true, true, "http://127.0.0.1:17077", "http://127.0.0.1:17077", ""},
		{"localhost:17077", "http://localhost:17077", true, true, "http://localhost:17077", "http://localhost:17077", ""},
		// A page of an allowed origin through the forward is allowed, but
		// is not Core's own for the approvals API.
		{"devbox.test", "http://localhost:5173", true, true, "https://devbox.test:8443", "https://devbox.test:8443", "another origin"},
		// DNS rebinding and look-alikes stay refused.
		{"evil.test", "https://evil.test", false, false, "", "http://127.0.0.1:7077", "another origin"},
		{"devbox.test.evil.io", "https://devbox.test.evil.io", false, false, "", "http://127.0.0.1:7077", "another origin"},
		{"devbox.test:8443", "https://devbox.test.evil.io:8443", true, false, "https://devbox.test:8443", "https://devbox.test:8443", "another origin"},
	} {
		r := httptest.NewRequest("GET", "http://x/ws", nil)
		r.Host = tc.host
		r.Header.Set("Origin", tc.origin)
		if got := c.hostAllowed(r); got != tc.hostOK {
			t.Errorf("Host %q: allowed %v, want %v", tc.host, got, tc.hostOK)
		}
		if _, got := c.originAllowed(r); got != tc.originOK {
			t.Errorf("Host %q, Origin %q: allowed %v, want %v", tc.host, tc.origin, got, tc.originOK)
		}
		if got := c.ownOrigin(r); got != tc.own {
			t.Errorf("Host %q: own origin %q, want %q", tc.host, got, tc.own)
		}
		if got := c.baseFor(r); got != tc.base {
			t.Errorf("Host %q: links at %q, want %q", tc.host, got, tc.base)
		}
		refusal := guard.Refusal(r, false)
		if tc.refusal == "" && refusal != "the request does not carry this Core's approver token" {
			t.Errorf("Host %q, Origin %q: the approvals Guard refuses it as %q, want only for the missing token", tc.host, tc.origin, refusal)
		}
		if tc.refusal != "" && !strings.Contains(refusal, tc.refusal) {
			t.Errorf("Host %q, Origin %q: the approvals Guard says %q, want %q", tc.host, tc.origin, refusal, tc.refusal)
		}
	}
}
