package runtime

import "net/http"

// demoCSP is the demo's Content-Security-Policy. The demo runs on Core's
// own origin, where the console and the approvals API live, and shows
// what agents and pages wrote: only Core's own files may run or style it,
// no blob: or data: URL may load in it, nothing may frame it, and it
// posts no form anywhere. 'self' in connect-src covers its WebSocket.
const demoCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// demoHeaders gives the demo's files the headers the console has
// (approvals.Guard): no framing (frame-ancestors, X-Frame-Options), no
// reading by other origins (CORP), no handle on its window (COOP), no
// type sniffing, no Referer carrying its URL out.
func demoHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", demoCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}
