package approvals

import (
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/web"
)

// PagePath + a request's id is the approval window.
const PagePath = "/console/approve/"

// Logger is what the approvals API writes to Core's log through.
type Logger interface {
	Info(msg string, keyvals ...any)
	Warn(msg string, keyvals ...any)
}

// API is the approval window and the approvals API under
// wire.ApprovalsPath: the state, decide and revoke, behind Guard.
type API struct {
	Book  *Book
	Guard *Guard
	// State is what the state endpoint answers: the Book's, with what
	// Core adds (WithAllowOrigins).
	State func() wire.ApprovalsState
	// ExplainRevoke, if set, may replace the error of a revocation the
	// Book refused with a clearer one (Core: an --allow-origin grant,
	// which only a restart takes back).
	ExplainRevoke func(origin string, err error) error
	Log           Logger
}

// Mount routes the approval window and the approvals API.
func (a *API) Mount(mux *http.ServeMux) {
	mux.Handle("GET "+PagePath+"{id}", a.Guard.Page(http.HandlerFunc(a.servePage)))
	mux.Handle("GET "+wire.ApprovalsPath+"state", a.Guard.API(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, a.State())
	}), false))
	mux.Handle("POST "+wire.ApprovalsPath+"decide", a.Guard.API(http.HandlerFunc(a.serveDecide), true))
	mux.Handle("POST "+wire.ApprovalsPath+"revoke", a.Guard.API(http.HandlerFunc(a.serveRevoke), true))
}

// WithAllowOrigins adds the --allow-origin patterns to st's approved
// origins (By ByAllowOrigin, approved since Core started), so the console
// and `pedelec approvals` list every origin that may use Core. They are
// not the Book's: they cannot be revoked, only left off the command line
// at the next start.
func WithAllowOrigins(st wire.ApprovalsState, patterns []string, since time.Time) wire.ApprovalsState {
	for _, pattern := range patterns {
		origin := strings.TrimRight(pattern, "/")
		if !slices.ContainsFunc(st.Origins, func(g wire.OriginGrant) bool { return strings.EqualFold(g.Origin, origin) }) {
			st.Origins = append(st.Origins, wire.OriginGrant{Origin: origin, ApprovedAt: since, By: ByAllowOrigin})
		}
	}
	return st
}

func (a *API) serveDecide(w http.ResponseWriter, r *http.Request) {
	var d wire.ApprovalDecision
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&d); err != nil {
		wire.WriteJSON(w, http.StatusBadRequest, wire.AgentResult{Error: wire.Errorf(wire.CodeInvalidInput, "the body is not an ApprovalDecision: %v", err)})
		return
	}
	by := ByCLI
	if r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" {
		by = ByConsole
	}
	req, err := a.Book.Decide(d.ID, d.Decision, d.Reason, by)
	if err != nil {
		wire.WriteJSON(w, errorStatus(err), wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	a.Log.Info("approval decided", "kind", req.Kind, "origin", req.Origin, "tool", req.Tool, "decision", d.Decision, "by", by)
	wire.WriteJSON(w, http.StatusOK, map[string]any{"ok": true, "request": req})
}

func (a *API) serveRevoke(w http.ResponseWriter, r *http.Request) {
	var rv wire.OriginRevocation
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&rv); err != nil {
		wire.WriteJSON(w, http.StatusBadRequest, wire.AgentResult{Error: wire.Errorf(wire.CodeInvalidInput, "the body is not an OriginRevocation: %v", err)})
		return
	}
	if err := a.Book.Revoke(rv.Origin); err != nil {
		if a.ExplainRevoke != nil {
			err = a.ExplainRevoke(rv.Origin, err)
		}
		wire.WriteJSON(w, errorStatus(err), wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	a.Log.Info("origin revoked", "origin", rv.Origin)
	wire.WriteJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// errorStatus is the HTTP status of an approvals API error.
func errorStatus(err error) int {
	switch wire.AsError(err).Code {
	case wire.CodeApprovalNotFound:
		return http.StatusNotFound
	case wire.CodeInvalidInput:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// approvePage is the approval window's template (web/approve).
var approvePage = template.Must(template.New("approve").Parse(web.ApprovePage))

// servePage renders the approval window of one pending request, with the
// approver token embedded: only Core's own origin can read it (no CORS),
// and the Guard's headers keep it out of frames and out of the reach of
// the page that opened it.
func (a *API) servePage(w http.ResponseWriter, r *http.Request) {
	req, found := a.Book.Pending(r.PathValue("id"))
	// The arguments exactly as Core holds them and will send them to the
	// page: the window parses them as the page's handler does
	// (web/console/args-view.js), so what it shows is what runs.
	args := string(req.Args)
	nonce := ids.New("n")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'nonce-"+nonce+
		"'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !found {
		w.WriteHeader(http.StatusNotFound)
	}
	if err := approvePage.Execute(w, map[string]any{"Found": found, "Req": req, "Args": args, "Token": a.Guard.Token, "Nonce": nonce}); err != nil {
		a.Log.Warn("approval page", "err", err)
	}
}
