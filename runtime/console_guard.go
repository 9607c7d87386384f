package runtime

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The console's guard (docs/security.md, "The console"). The peer check
// already admits only Core's own OS user; this keeps every other web
// origin out of /console/: a page of another origin may send a request
// there (a fetch, a form, an <img>), but Core answers it with a refusal,
// and what Core does answer cannot be read or framed by another origin.
// (Once runtime/approvals' guard is merged, the console's routes can use
// it instead: the rules are the same.)

// consoleRequestAllowed applies the rules to one request: Origin, when a
// browser sends it, is Core's own (http://<the Host asked for>, which the
// Host check has already held to a loopback name), and Sec-Fetch-Site, when
// sent, is same-origin or none (typed in the address bar, a bookmark).
// same-site is refused too: every port of localhost is the same site.
// Requests without either header come from programs, not pages.
func consoleRequestAllowed(r *http.Request) (ok bool, why string) {
	if origin := r.Header.Get("Origin"); origin != "" && !isCoreOrigin(origin, r.Host) {
		return false, "origin " + origin + " is not Core's own"
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return false, "Sec-Fetch-Site is " + site
	}
	return true, ""
}

// isCoreOrigin tells whether origin is the origin of Core's own pages for
// a request addressed to host.
func isCoreOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Path == "" && strings.EqualFold(u.Host, host)
}

// consoleCSP is the console's Content-Security-Policy: its own files only,
// no inline script, nothing may frame it.
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// consoleGuard refuses requests consoleRequestAllowed refuses and gives
// every answer headers that keep other origins from framing it, reading
// it (Cross-Origin-Resource-Policy stops even no-cors reads) or keeping a
// handle on its window (Cross-Origin-Opener-Policy).
func (c *Core) consoleGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", consoleCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Referrer-Policy", "no-referrer")
		if ok, why := consoleRequestAllowed(r); !ok {
			c.refusals.note("console", r.Header.Get("Origin")+"|"+r.Header.Get("Sec-Fetch-Site"), "refused a console request from another site",
				"path", r.URL.Path, "why", why, "hint", "open the console by typing its URL; pages of other origins may not use it")
			writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
				"the console answers only Core's own pages: %s", why)})
			return
		}
		next.ServeHTTP(w, r)
	})
}
