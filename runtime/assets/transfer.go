package assets

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Asset transfer: the page asks for a ticket over its WebSocket (which has
// passed the origin check and owns the session), then moves the bytes
// over plain HTTP on Core's own port, so a 100 MiB file never sits in a
// WebSocket frame or in memory.

// Host is what the transfers need of Core. The root runtime package
// implements it; this package never imports that one.
type Host interface {
	// OriginAllowed applies the page WebSocket's origin rule to r.
	OriginAllowed(r *http.Request) (origin string, ok bool)
	// Session finds a live or recently ended session by its id.
	Session(id string) (Session, error)
}

// Session is one of Core's sessions as a transfer sees it.
type Session interface {
	Assets() Dir
	Ended() bool // ending or ended: its assets are gone
	Log() Logger
	// ReserveAssetQuota refuses size more bytes at path past the session's
	// or the total disk quota (ASSET_QUOTA_EXCEEDED), else holds them
	// against both until release: checked at the upload itself, not only
	// when its ticket was issued, since tickets of several sessions may be
	// taken before any of them uploads.
	ReserveAssetQuota(path string, size int64) (release func(), err error)
}

// Logger is what the transfers write to Core's log through.
type Logger interface {
	Info(msg string, keyvals ...any)
	Warn(msg string, keyvals ...any)
}

// Transfers are a Core's asset transfer endpoints and the book of tickets
// that authorises them.
type Transfers struct {
	host    Host
	log     Logger
	ttl     time.Duration // how long a ticket may wait before its request
	tickets ticketBook
}

// NewTransfers makes the transfers of the Core host; tickets stay valid
// for ticketTTL.
func NewTransfers(host Host, log Logger, ticketTTL time.Duration) *Transfers {
	return &Transfers{host: host, log: log, ttl: ticketTTL}
}

// CheckUpload checks an upload ticket's parameters, as asset_upload_ticket
// does before it looks at the session.
func CheckUpload(p string, size *int64) error {
	if size == nil || *size < 0 {
		return wire.Errorf(wire.CodeInvalidInput, "params.sizeBytes is required: the file's size in bytes")
	}
	if _, err := assetSegments(p); err != nil {
		return err
	}
	if *size > MaxBytes {
		return wire.Errorf(wire.CodeAssetTooLarge, "%s is %d bytes; an asset may be at most %d bytes (100 MiB)", p, *size, MaxBytes).
			WithDetails(map[string]any{"path": p, "sizeBytes": *size, "limit": MaxBytes})
	}
	return nil
}

// UploadTicket reserves the session's one upload slot and issues the
// ticket for an upload of size bytes to path, checked by CheckUpload.
func (x *Transfers) UploadTicket(sessionID, origin, path string, size int64) (wire.AssetTicket, error) {
	return x.tickets.issueUpload(sessionID, origin, path, size, x.ttl)
}

// ReadTicket issues the ticket for a read of path in dir, the assets of
// session sessionID. What would be refused at the GET is refused here, so
// the page learns ASSET_NOT_FOUND without a second round trip; the GET
// checks again.
func (x *Transfers) ReadTicket(dir Dir, sessionID, origin, path string) (wire.AssetTicket, error) {
	f, err := dir.stat(path)
	if err != nil {
		return wire.AssetTicket{}, failure(wire.CodeAssetReadFailed, path, "read asset", err)
	}
	if werr := checkReadSize(f.info); werr != nil {
		return wire.AssetTicket{}, werr
	}
	t := x.tickets.issue(&ticket{sessionID: sessionID, origin: origin, path: path}, x.ttl)
	t.Asset, t.MimeType = &f.info, f.mime
	return t, nil
}

func checkReadSize(a wire.Asset) error {
	if a.SizeBytes > MaxBytes {
		return wire.Errorf(wire.CodeAssetReadTooLarge, "%s is %d bytes; a read may be at most %d bytes (100 MiB)", a.Path, a.SizeBytes, MaxBytes).
			WithDetails(map[string]any{"path": a.Path, "sizeBytes": a.SizeBytes, "limit": MaxBytes})
	}
	return nil
}

// failure keeps an asset error's own code and turns any other error
// (permissions, a full disk) into fallback, naming what was attempted.
func failure(fallback wire.Code, p, what string, err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.Errorf(fallback, "%s %s: %v", what, p, err).WithDetails(map[string]any{"path": p})
}

// Route adds the transfer endpoints to Core's mux.
func (x *Transfers) Route(mux *http.ServeMux) {
	mux.HandleFunc("OPTIONS /assets/", x.servePreflight)
	mux.HandleFunc("PUT "+wire.AssetUploadPath+"{session}/{ticket}", x.serveUpload)
	mux.HandleFunc("GET "+wire.AssetReadPath+"{session}/{ticket}", x.serveRead)
}

// requestOrigin is the page origin behind an HTTP request. Browsers leave
// Origin out of same-origin GETs but say Sec-Fetch-Site: same-origin, which
// no page can forge; Core's own demo then counts as Core's origin.
func requestOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return o
	}
	if r.Header.Get("Sec-Fetch-Site") == "same-origin" {
		return "http://" + r.Host
	}
	return ""
}

// cors applies the WebSocket's origin rule to a transfer request and, for
// an allowed page origin, lets that page read the answer.
func (x *Transfers) cors(w http.ResponseWriter, r *http.Request) (origin string, ok bool) {
	origin = requestOrigin(r)
	if r.Header.Get("Origin") == "" && origin != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Origin", origin)
	}
	if _, ok := x.host.OriginAllowed(r); !ok {
		x.log.Warn("refused an asset transfer: origin not allowed", "origin", origin, "path", r.URL.Path)
		wire.WriteJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
			"origin %s may not use this Pedelec Core; start it with --allow-origin %s", origin, origin)})
		return origin, false
	}
	if origin != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Content-Length, Content-Type, "+wire.HeaderAssetName+", "+wire.HeaderAssetModifiedAt)
	}
	return origin, true
}

func (x *Transfers) servePreflight(w http.ResponseWriter, r *http.Request) {
	if _, ok := x.cors(w, r); !ok {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, PUT")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// status is the HTTP status that goes with an asset error.
func status(code wire.Code) int {
	switch code {
	case wire.CodeAssetPathInvalid, wire.CodeAssetUploadSizeMismatch, wire.CodeInvalidInput:
		return http.StatusBadRequest
	case wire.CodeAssetUploadUnauthorized, wire.CodeAssetDownloadUnauthorized,
		wire.CodeAssetUploadTicketExpired, wire.CodeAssetDownloadTicketExpired, wire.CodeThreadAccessDenied:
		return http.StatusForbidden
	case wire.CodeAssetNotFound, wire.CodeThreadNotFound:
		return http.StatusNotFound
	case wire.CodeAssetNotFile, wire.CodeAssetUploadBusy:
		return http.StatusConflict
	case wire.CodeSessionEnded:
		return http.StatusGone
	case wire.CodeAssetTooLarge, wire.CodeAssetReadTooLarge:
		return http.StatusRequestEntityTooLarge
	case wire.CodeAssetQuotaExceeded:
		return http.StatusInsufficientStorage
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, err error) {
	we := wire.AsError(err)
	w.Header().Set("Cache-Control", "no-store")
	wire.WriteJSON(w, status(we.Code), wire.AgentResult{Error: we})
}

// transferSession redeems the request's ticket and finds its live session.
func (x *Transfers) transferSession(r *http.Request, origin string, upload bool) (*ticket, Session, error) {
	t, werr := x.tickets.redeem(upload, r.PathValue("session"), r.PathValue("ticket"), origin)
	if werr != nil {
		return nil, nil, werr
	}
	s, werr := x.host.Session(t.sessionID)
	if werr != nil {
		return t, nil, werr
	}
	if s.Ended() {
		return t, nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended; its assets are gone", t.sessionID)
	}
	return t, s, nil
}

func (x *Transfers) serveUpload(w http.ResponseWriter, r *http.Request) {
	origin, ok := x.cors(w, r)
	if !ok {
		x.tickets.spend(r.PathValue("ticket"))
		return
	}
	rc := http.NewResponseController(w)
	idle := func() { rc.SetReadDeadline(time.Now().Add(transferIdleTimeout)) }
	// A browser still sending its body when the answer comes may see a
	// reset connection instead of the answer; reading the rest of the body
	// (at most the limit, never stalled) first lets the page learn the code.
	refuse := func(werr error) {
		io.CopyBuffer(io.Discard, io.LimitReader(&endingReader{r: r.Body, idle: idle}, MaxBytes+1), make([]byte, 64<<10))
		writeError(w, werr)
	}
	t, s, werr := x.transferSession(r, origin, true)
	if t != nil && t.upload {
		defer x.tickets.uploadDone(t.sessionID, r.PathValue("ticket"))
	}
	if werr != nil {
		refuse(werr)
		return
	}
	if r.ContentLength >= 0 && r.ContentLength != t.size {
		refuse(wire.Errorf(wire.CodeAssetUploadSizeMismatch, "upload of %s declares %d bytes; the file is %d bytes", t.path, r.ContentLength, t.size).
			WithDetails(map[string]any{"path": t.path, "expectedBytes": t.size, "receivedBytes": r.ContentLength}))
		return
	}
	release, werr := s.ReserveAssetQuota(t.path, t.size)
	if werr != nil {
		refuse(werr)
		return
	}
	defer release()
	body := &endingReader{r: r.Body, s: s, sessionID: t.sessionID, idle: idle}
	asset, err := s.Assets().write(t.path, t.size, body)
	if err != nil {
		werr := failure(wire.CodeAssetUploadFailed, t.path, "upload asset", err)
		if body.ended {
			werr = wire.Errorf(wire.CodeSessionEnded, "session %s ended during the upload of %s", t.sessionID, t.path)
		}
		s.Log().Warn("asset upload failed", "path", t.path, "code", werr.Code, "err", werr.Message)
		refuse(werr)
		return
	}
	s.Log().Info("asset uploaded", "path", asset.Path, "bytes", asset.SizeBytes)
	w.Header().Set("Cache-Control", "no-store")
	wire.WriteJSON(w, http.StatusOK, wire.AssetUploaded{OK: true, Asset: asset})
}

// transferIdleTimeout bounds how long a transfer may stall between two
// chunks, so a client that stops sending or reading cannot hold a session's
// upload slot (or a file) forever.
const transferIdleTimeout = 60 * time.Second

// endingReader stops a transfer as soon as its session (if any) starts
// ending, and pushes the connection's idle deadline forward on every chunk.
type endingReader struct {
	r         io.Reader
	s         Session
	sessionID string
	idle      func()
	ended     bool
}

func (e *endingReader) Read(p []byte) (int, error) {
	if e.s != nil && e.s.Ended() {
		e.ended = true
		return 0, wire.Errorf(wire.CodeSessionEnded, "session %s ended", e.sessionID)
	}
	if e.idle != nil {
		e.idle()
	}
	return e.r.Read(p)
}

func (x *Transfers) serveRead(w http.ResponseWriter, r *http.Request) {
	origin, ok := x.cors(w, r)
	if !ok {
		x.tickets.spend(r.PathValue("ticket"))
		return
	}
	t, s, werr := x.transferSession(r, origin, false)
	if werr != nil {
		writeError(w, werr)
		return
	}
	f, err := s.Assets().open(t.path)
	if err != nil {
		writeError(w, failure(wire.CodeAssetReadFailed, t.path, "read asset", err))
		return
	}
	defer f.Close()
	if werr := checkReadSize(f.info); werr != nil {
		writeError(w, werr)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.mime)
	h.Set("Content-Length", strconv.FormatInt(f.info.SizeBytes, 10))
	h.Set("Cache-Control", "no-store")
	inert(h, f.mime, f.info.Name)
	h.Set(wire.HeaderAssetName, url.PathEscape(f.info.Name))
	h.Set(wire.HeaderAssetModifiedAt, strconv.FormatInt(f.info.ModifiedAt, 10))
	w.WriteHeader(http.StatusOK)
	// Exactly the size announced: a file that grows meanwhile is cut at it;
	// one that shrinks (or a session that ends) aborts the response, so the
	// page sees a short body, never a wrong one.
	rc := http.NewResponseController(w)
	src := &endingReader{r: f, s: s, sessionID: t.sessionID, idle: func() { rc.SetWriteDeadline(time.Now().Add(transferIdleTimeout)) }}
	n, err := io.CopyBuffer(w, io.LimitReader(src, f.info.SizeBytes), make([]byte, 256<<10))
	if err == nil && n < f.info.SizeBytes {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		s.Log().Warn("asset read cut short", "path", t.path, "sent", n, "size", f.info.SizeBytes, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// inert keeps a read asset from ever running as a document of Core's
// origin, where the console and the approvals API live (issue 22): the
// agent writes these files, and a page could open a read URL as a window.
// The bytes still arrive unchanged for the SDK's fetch. The sandbox CSP
// gives a document opened from it an opaque origin and no script;
// nosniff stops a browser from guessing a scriptable type; types a
// browser renders as a document (HTML, SVG, XML) are downloads, never
// shown in place.
func inert(h http.Header, ctype, name string) {
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	if documentType(ctype) {
		d := mime.FormatMediaType("attachment", map[string]string{"filename": name})
		if d == "" {
			d = "attachment"
		}
		h.Set("Content-Disposition", d)
	}
}

// documentType reports whether a browser would render ctype as a document
// that can hold script.
func documentType(ctype string) bool {
	base, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		return true // unreadable: assume the worst
	}
	switch base {
	case "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml", "text/xsl", "application/xslt+xml",
		"text/javascript", "application/javascript", "application/pdf", "multipart/x-mixed-replace":
		return true
	}
	return strings.HasSuffix(base, "+xml")
}
