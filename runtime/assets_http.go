package runtime

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Asset transfer: the page asks for a ticket over its WebSocket (which has
// passed the origin check and owns the session), then moves the bytes
// over plain HTTP on Core's own port, so a 100 MiB file never sits in a
// WebSocket frame or in memory. A ticket is for one path of one session,
// is bound to the origin that asked for it, works once, and expires soon.

// DefaultAssetTicketTTL is how long a ticket may wait before its request.
// The SDK uses a ticket at once; the lifetime only has to cover a slow
// event loop.
const DefaultAssetTicketTTL = 30 * time.Second

type assetTicket struct {
	upload    bool
	sessionID string
	origin    string
	path      string
	size      int64 // uploads: the exact byte count to expect
	expires   time.Time
}

// assetTickets is Core's book of issued tickets and of the one upload each
// session may run.
type assetTickets struct {
	mu        sync.Mutex
	tickets   map[string]*assetTicket
	used      map[string]time.Time // presented tickets, kept to say "already used"
	uploading map[string]*uploadSlot
}

// uploadSlot is a session's one upload: reserved when its ticket is
// issued, held while the PUT runs, freed when it ends or its ticket
// expires unused.
type uploadSlot struct {
	token   string
	path    string
	started bool
	expires time.Time
}

func init() {
	// Registered here so the asset methods stay in this file; dispatch.go
	// runs them like any other method.
	methods[wire.MethodListAssets] = handleListAssets
	methods[wire.MethodAssetUploadTicket] = handleAssetUploadTicket
	methods[wire.MethodAssetReadTicket] = handleAssetReadTicket
}

func (s *Session) assets() assetFS { return assetFS{sessionDir: s.dirs.root} }

// assetSession is sessionFor plus the rule every asset method shares: an
// ending or ended session has no assets any more.
func (c *conn) assetSession(params json.RawMessage, p any, check func() error) (*Session, error) {
	s, err := c.sessionFor(params, p, check)
	if err != nil {
		return nil, err
	}
	if s.isEnded() {
		return nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended; its assets are gone", s.id).
			WithDetails(map[string]any{"sessionId": s.id})
	}
	return s, nil
}

func handleListAssets(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	s, werr := c.assetSession(params, &wire.SessionParams{}, nil)
	if werr != nil {
		return nil, nil, werr
	}
	list, err := s.assets().list()
	if err != nil {
		return nil, nil, assetFailure(wire.CodeAssetListFailed, "", "list assets", err)
	}
	if list == nil {
		list = []SandboxAsset{}
	}
	return wire.ListAssetsResult{Assets: list}, nil, nil
}

func handleAssetUploadTicket(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.AssetUploadTicketParams
	s, werr := c.assetSession(params, &p, func() error {
		if p.SizeBytes == nil || *p.SizeBytes < 0 {
			return wire.Errorf(wire.CodeInvalidInput, "params.sizeBytes is required: the file's size in bytes")
		}
		if _, err := assetSegments(p.Path); err != nil {
			return err
		}
		if *p.SizeBytes > MaxAssetBytes {
			return wire.Errorf(wire.CodeAssetTooLarge, "%s is %d bytes; an asset may be at most %d bytes (100 MiB)", p.Path, *p.SizeBytes, MaxAssetBytes).
				WithDetails(map[string]any{"path": p.Path, "sizeBytes": *p.SizeBytes, "limit": MaxAssetBytes})
		}
		return nil
	})
	if werr != nil {
		return nil, nil, werr
	}
	t, werr := c.core.tickets.issueUpload(s.id, c.origin, p.Path, *p.SizeBytes, c.core.ticketTTL())
	if werr != nil {
		return nil, nil, werr
	}
	return t, nil, nil
}

func handleAssetReadTicket(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.AssetReadTicketParams
	s, werr := c.assetSession(params, &p, func() error {
		if _, err := assetSegments(p.Path); err != nil {
			return err
		}
		return nil
	})
	if werr != nil {
		return nil, nil, werr
	}
	// Refuse early what would be refused at the GET, so the page learns
	// ASSET_NOT_FOUND without a second round trip; the GET checks again.
	f, err := s.assets().stat(p.Path)
	if err != nil {
		return nil, nil, assetFailure(wire.CodeAssetReadFailed, p.Path, "read asset", err)
	}
	if werr := checkReadSize(f.info); werr != nil {
		return nil, nil, werr
	}
	t := c.core.tickets.issue(&assetTicket{sessionID: s.id, origin: c.origin, path: p.Path}, c.core.ticketTTL())
	t.Asset, t.MimeType = &f.info, f.mime
	return t, nil, nil
}

func checkReadSize(a SandboxAsset) error {
	if a.SizeBytes > MaxAssetBytes {
		return wire.Errorf(wire.CodeAssetReadTooLarge, "%s is %d bytes; a read may be at most %d bytes (100 MiB)", a.Path, a.SizeBytes, MaxAssetBytes).
			WithDetails(map[string]any{"path": a.Path, "sizeBytes": a.SizeBytes, "limit": MaxAssetBytes})
	}
	return nil
}

// assetFailure keeps an asset error's own code and turns any other error
// (permissions, a full disk) into fallback, naming what was attempted.
func assetFailure(fallback wire.Code, p, what string, err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.Errorf(fallback, "%s %s: %v", what, p, err).WithDetails(map[string]any{"path": p})
}

func (c *Core) ticketTTL() time.Duration {
	if c.opts.AssetTicketTTL > 0 {
		return c.opts.AssetTicketTTL
	}
	return DefaultAssetTicketTTL
}

func newTicketToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// issue records t and describes it for the page.
func (b *assetTickets) issue(t *assetTicket, ttl time.Duration) wire.AssetTicket {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, out := b.issueLocked(t, ttl)
	return out
}

func (b *assetTickets) issueLocked(t *assetTicket, ttl time.Duration) (token string, out wire.AssetTicket) {
	if b.tickets == nil {
		b.tickets, b.used, b.uploading = map[string]*assetTicket{}, map[string]time.Time{}, map[string]*uploadSlot{}
	}
	b.sweepLocked()
	token = newTicketToken()
	t.expires = time.Now().Add(ttl)
	b.tickets[token] = t
	base, method := wire.AssetReadPath, http.MethodGet
	if t.upload {
		base, method = wire.AssetUploadPath, http.MethodPut
	}
	return token, wire.AssetTicket{URL: base + url.PathEscape(t.sessionID) + "/" + token, Method: method, Path: t.path, ExpiresAt: t.expires.UnixMilli()}
}

// issueUpload reserves the session's one upload slot and issues its ticket.
func (b *assetTickets) issueUpload(sessionID, origin, p string, size int64, ttl time.Duration) (wire.AssetTicket, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slot := b.uploading[sessionID]; slot != nil && (slot.started || time.Now().Before(slot.expires)) {
		return wire.AssetTicket{}, wire.Errorf(wire.CodeAssetUploadBusy, "session %s is already uploading %s; one upload at a time", sessionID, slot.path).
			WithDetails(map[string]any{"path": p, "uploading": slot.path})
	}
	token, t := b.issueLocked(&assetTicket{upload: true, sessionID: sessionID, origin: origin, path: p, size: size}, ttl)
	b.uploading[sessionID] = &uploadSlot{token: token, path: p, expires: time.Now().Add(ttl)}
	return t, nil
}

// sweepLocked forgets tickets long expired, and used marks long past.
func (b *assetTickets) sweepLocked() {
	cutoff := time.Now().Add(-10 * time.Minute)
	for k, t := range b.tickets {
		if t.expires.Before(cutoff) {
			delete(b.tickets, k)
		}
	}
	for k, at := range b.used {
		if at.Before(cutoff) {
			delete(b.used, k)
		}
	}
}

// redeem consumes the ticket token for a request naming sessionID from
// origin. A ticket is spent by its first presentation, whatever follows.
func (b *assetTickets) redeem(upload bool, sessionID, token, origin string) (*assetTicket, error) {
	expiredCode, unauthorized, kind := wire.CodeAssetDownloadTicketExpired, wire.CodeAssetDownloadUnauthorized, "read"
	if upload {
		expiredCode, unauthorized, kind = wire.CodeAssetUploadTicketExpired, wire.CodeAssetUploadUnauthorized, "upload"
	}
	refuse := func(reason, msg string) *wire.Error {
		return wire.Errorf(unauthorized, "%s ticket refused: %s", kind, msg).WithDetails(map[string]any{"reason": reason})
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tickets[token]
	if !ok {
		if _, used := b.used[token]; used {
			return nil, refuse("used", "it was already used; every transfer needs a fresh ticket")
		}
		return nil, refuse("unknown", "Core did not issue it (or has forgotten it)")
	}
	delete(b.tickets, token)
	b.used[token] = time.Now()
	if t.upload && b.uploading[t.sessionID] != nil && b.uploading[t.sessionID].token == token {
		if !upload || t.sessionID != sessionID || t.origin != origin || time.Now().After(t.expires) {
			delete(b.uploading, t.sessionID) // this ticket will never upload
		} else {
			b.uploading[t.sessionID].started = true
		}
	}
	switch {
	case t.upload != upload:
		return nil, refuse("wrong_kind", "it is not a "+kind+" ticket")
	case t.sessionID != sessionID:
		return nil, refuse("other_session", "it was issued for another session")
	case t.origin != origin:
		return nil, refuse("other_origin", "it was issued to another origin").
			WithDetails(map[string]any{"reason": "other_origin", "origin": origin})
	case time.Now().After(t.expires):
		return nil, wire.Errorf(expiredCode, "%s ticket expired at %s; ask for a fresh one", kind, t.expires.UTC().Format(time.RFC3339Nano)).
			WithDetails(map[string]any{"expiredAt": t.expires.UnixMilli()})
	}
	return t, nil
}

// spend uses up a ticket presented by a request refused before redeem (an
// origin Core does not allow): a ticket is spent by its first
// presentation, and the upload slot it held is freed at once rather than
// kept busy for the ticket's lifetime.
func (b *assetTickets) spend(token string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tickets[token]
	if !ok {
		return
	}
	delete(b.tickets, token)
	b.used[token] = time.Now()
	if slot := b.uploading[t.sessionID]; t.upload && slot != nil && slot.token == token {
		delete(b.uploading, t.sessionID)
	}
}

// uploadDone frees the session's upload slot if token still holds it.
func (b *assetTickets) uploadDone(sessionID, token string) {
	b.mu.Lock()
	if slot := b.uploading[sessionID]; slot != nil && slot.token == token {
		delete(b.uploading, sessionID)
	}
	b.mu.Unlock()
}

// routeAssets adds the transfer endpoints to Core's mux.
func (c *Core) routeAssets(mux *http.ServeMux) {
	mux.HandleFunc("OPTIONS /assets/", c.serveAssetPreflight)
	mux.HandleFunc("PUT "+wire.AssetUploadPath+"{session}/{ticket}", c.serveAssetUpload)
	mux.HandleFunc("GET "+wire.AssetReadPath+"{session}/{ticket}", c.serveAssetRead)
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

// assetCORS applies the WebSocket's origin rule to a transfer request and,
// for an allowed page origin, lets that page read the answer.
func (c *Core) assetCORS(w http.ResponseWriter, r *http.Request) (origin string, ok bool) {
	origin = requestOrigin(r)
	if r.Header.Get("Origin") == "" && origin != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Origin", origin)
	}
	if _, ok := c.originAllowed(r); !ok {
		c.log.Warn("refused an asset transfer: origin not allowed", "origin", origin, "path", r.URL.Path)
		writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
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

func (c *Core) serveAssetPreflight(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.assetCORS(w, r); !ok {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, PUT")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// assetStatus is the HTTP status that goes with an asset error.
func assetStatus(code wire.Code) int {
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
	}
	return http.StatusInternalServerError
}

func writeAssetError(w http.ResponseWriter, err error) {
	we := wire.AsError(err)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, assetStatus(we.Code), wire.AgentResult{Error: we})
}

// transferSession redeems the request's ticket and finds its live session.
func (c *Core) transferSession(r *http.Request, origin string, upload bool) (*assetTicket, *Session, error) {
	t, werr := c.tickets.redeem(upload, r.PathValue("session"), r.PathValue("ticket"), origin)
	if werr != nil {
		return nil, nil, werr
	}
	s, werr := c.session(t.sessionID)
	if werr != nil {
		return t, nil, werr
	}
	if s.isEnded() {
		return t, nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended; its assets are gone", s.id)
	}
	return t, s, nil
}

func (c *Core) serveAssetUpload(w http.ResponseWriter, r *http.Request) {
	origin, ok := c.assetCORS(w, r)
	if !ok {
		c.tickets.spend(r.PathValue("ticket"))
		return
	}
	rc := http.NewResponseController(w)
	idle := func() { rc.SetReadDeadline(time.Now().Add(transferIdleTimeout)) }
	// A browser still sending its body when the answer comes may see a
	// reset connection instead of the answer; reading the rest of the body
	// (at most the limit, never stalled) first lets the page learn the code.
	refuse := func(werr error) {
		io.CopyBuffer(io.Discard, io.LimitReader(&endingReader{r: r.Body, idle: idle}, MaxAssetBytes+1), make([]byte, 64<<10))
		writeAssetError(w, werr)
	}
	t, s, werr := c.transferSession(r, origin, true)
	if t != nil && t.upload {
		defer c.tickets.uploadDone(t.sessionID, r.PathValue("ticket"))
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
	body := &endingReader{r: r.Body, s: s, idle: idle}
	asset, err := s.assets().write(t.path, t.size, body)
	if err != nil {
		werr := assetFailure(wire.CodeAssetUploadFailed, t.path, "upload asset", err)
		if body.ended {
			werr = wire.Errorf(wire.CodeSessionEnded, "session %s ended during the upload of %s", s.id, t.path)
		}
		s.log.Warn("asset upload failed", "path", t.path, "code", werr.Code, "err", werr.Message)
		refuse(werr)
		return
	}
	s.log.Info("asset uploaded", "path", asset.Path, "bytes", asset.SizeBytes)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, wire.AssetUploaded{OK: true, Asset: asset})
}

// transferIdleTimeout bounds how long a transfer may stall between two
// chunks, so a client that stops sending or reading cannot hold a session's
// upload slot (or a file) forever.
const transferIdleTimeout = 60 * time.Second

// endingReader stops a transfer as soon as its session (if any) starts
// ending, and pushes the connection's idle deadline forward on every chunk.
type endingReader struct {
	r     io.Reader
	s     *Session
	idle  func()
	ended bool
}

func (e *endingReader) Read(p []byte) (int, error) {
	if e.s != nil && e.s.isEnded() {
		e.ended = true
		return 0, wire.Errorf(wire.CodeSessionEnded, "session %s ended", e.s.id)
	}
	if e.idle != nil {
		e.idle()
	}
	return e.r.Read(p)
}

func (c *Core) serveAssetRead(w http.ResponseWriter, r *http.Request) {
	origin, ok := c.assetCORS(w, r)
	if !ok {
		c.tickets.spend(r.PathValue("ticket"))
		return
	}
	t, s, werr := c.transferSession(r, origin, false)
	if werr != nil {
		writeAssetError(w, werr)
		return
	}
	f, err := s.assets().open(t.path)
	if err != nil {
		writeAssetError(w, assetFailure(wire.CodeAssetReadFailed, t.path, "read asset", err))
		return
	}
	defer f.Close()
	if werr := checkReadSize(f.info); werr != nil {
		writeAssetError(w, werr)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.mime)
	h.Set("Content-Length", strconv.FormatInt(f.info.SizeBytes, 10))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(wire.HeaderAssetName, url.PathEscape(f.info.Name))
	h.Set(wire.HeaderAssetModifiedAt, strconv.FormatInt(f.info.ModifiedAt, 10))
	w.WriteHeader(http.StatusOK)
	// Exactly the size announced: a file that grows meanwhile is cut at it;
	// one that shrinks (or a session that ends) aborts the response, so the
	// page sees a short body, never a wrong one.
	rc := http.NewResponseController(w)
	src := &endingReader{r: f, s: s, idle: func() { rc.SetWriteDeadline(time.Now().Add(transferIdleTimeout)) }}
	n, err := io.CopyBuffer(w, io.LimitReader(src, f.info.SizeBytes), make([]byte, 256<<10))
	if err == nil && n < f.info.SizeBytes {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		s.log.Warn("asset read cut short", "path", t.path, "sent", n, "size", f.info.SizeBytes, "err", err)
		panic(http.ErrAbortHandler)
	}
}
