package approvals

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Guard decides who may read and make decisions: the approval window, the
// console and the CLI, never a web page of another origin and never an
// agent (docs/security.md has the threat model). Every request has already
// passed Core's peer check (Core's own OS user) and Host check (a loopback
// name) before it reaches the Guard.
type Guard struct {
	// Token is the per-run approver token: embedded in the pages Core
	// serves (which no other origin can read or frame) and written to
	// <state-dir>/approver-token for the CLI.
	Token string
	// RefuseAgent says why r comes from a process an agent runs (a
	// provider process Core started or its descendant, or a process with
	// the agent variables), or "" when it does not. nil: no such check.
	RefuseAgent func(r *http.Request) string
	// OnRefuse, when set, hears of every refused request (Core logs them,
	// rate-limited). nil: nobody is told.
	OnRefuse func(r *http.Request, why string)
	// SelfOrigin is the origin of Core's own pages as r reached Core
	// (http://<Host>, or --public-url's behind a forward). nil: http://<Host>.
	SelfOrigin func(r *http.Request) string
}

// CSP is the Content-Security-Policy of everything the Guard serves,
// unless a handler sets its own (the approval window adds a nonce): Core's
// own files only, no inline script, no form posts anywhere, and nothing
// may frame it.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// HeaderApprover carries the approver token (Authorization: Bearer works too).
const HeaderApprover = "X-Pedelec-Approver"

// Refusal is why r may not reach the approvals API ("" when it may).
// Actions (decide, revoke) are also refused to agents.
func (g *Guard) Refusal(r *http.Request, action bool) string {
	if why := g.sameOriginRefusal(r); why != "" {
		return why
	}
	token := r.Header.Get(HeaderApprover)
	if token == "" {
		if scheme, t, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			token = strings.TrimSpace(t)
		}
	}
	if g.Token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(g.Token)) != 1 {
		return "the request does not carry this Core's approver token"
	}
	if action && g.RefuseAgent != nil {
		if why := g.RefuseAgent(r); why != "" {
			return why
		}
	}
	return ""
}

// sameOriginRefusal: a browser names the page that sent a request in
// Origin and Sec-Fetch-Site; only Core's own pages (or no browser at all:
// the CLI sends neither) may use the API.
func (g *Guard) sameOriginRefusal(r *http.Request) string {
	self := "http://" + r.Host
	if g.SelfOrigin != nil {
		self = g.SelfOrigin(r)
	}
	if o := r.Header.Get("Origin"); o != "" && (self == "" || !strings.EqualFold(o, self)) {
		return "the request came from the page of another origin (" + o + ")"
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return "the request came from a " + site + " page"
	}
	return ""
}

// API wraps an approvals API handler: refused requests get
// APPROVER_NOT_ALLOWED (403) and never reach it.
func (g *Guard) API(next http.Handler, action bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protect(w)
		w.Header().Set("Cache-Control", "no-store")
		if why := g.Refusal(r, action); why != "" {
			g.refused(r, why)
			wire.WriteJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeApproverNotAllowed,
				"only the user may decide, from Core's own pages or `pedelec approve`: %s", why).WithDetails(map[string]any{"reason": why})})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Page wraps a page that embeds the token (the approval window, the
// console). It may be opened from any page (the approval window is opened
// by the page that asks), but only as a top-level document: never framed,
// never fetched or included by another origin, and in its own browsing
// context group, so the page that opened it keeps no handle into it.
func (g *Guard) Page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protect(w)
		w.Header().Set("Cache-Control", "no-store")
		switch dest := r.Header.Get("Sec-Fetch-Dest"); dest {
		case "", "document":
		default:
			g.refused(r, "Sec-Fetch-Dest is "+dest)
			http.Error(w, "this page opens only as a window of its own", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Read wraps what only Core's own pages may read, without the token: the
// console's page and files (the page is where the token comes from), its
// live feed (an EventSource cannot send a header) and the sessions'
// records. A page of any other origin may send the request, but gets
// ORIGIN_NOT_ALLOWED, and what Core does answer it can neither read (no
// CORS; Cross-Origin-Resource-Policy stops even no-cors reads) nor frame.
// A link from another site is refused too (Sec-Fetch-Site: cross-site):
// the console opens by typing its URL or from Core's own pages.
func (g *Guard) Read(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protect(w)
		if why := g.sameOriginRefusal(r); why != "" {
			g.refused(r, why)
			wire.WriteJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
				"the console answers only Core's own pages: %s", why).WithDetails(map[string]any{"reason": why})})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g *Guard) refused(r *http.Request, why string) {
	if g.OnRefuse != nil {
		g.OnRefuse(r, why)
	}
}

// protect gives every answer the headers that keep other origins out: no
// framing (CSP frame-ancestors, X-Frame-Options), no reading (CORP), no
// handle on its window (COOP), no sniffing a type into script, no
// Referer carrying a URL out.
func protect(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Referrer-Policy", "no-referrer")
}
