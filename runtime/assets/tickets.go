package assets

import (
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A ticket is for one path of one session, is bound to the origin that
// asked for it, works once, and expires soon.
type ticket struct {
	upload    bool
	sessionID string
	origin    string
	path      string
	size      int64 // uploads: the exact byte count to expect
	expires   time.Time
}

// ticketBook is the book of issued tickets and of the one upload each
// session may run. Its mu is a leaf:
// nothing else is taken while it is held.
type ticketBook struct {
	mu        sync.Mutex
	tickets   map[string]*ticket
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

// issue records t and describes it for the page.
func (b *ticketBook) issue(t *ticket, ttl time.Duration) wire.AssetTicket {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, out := b.issueLocked(t, ttl)
	return out
}

func (b *ticketBook) issueLocked(t *ticket, ttl time.Duration) (token string, out wire.AssetTicket) {
	if b.tickets == nil {
		b.tickets, b.used, b.uploading = map[string]*ticket{}, map[string]time.Time{}, map[string]*uploadSlot{}
	}
	b.sweepLocked()
	token = ids.New("")
	t.expires = time.Now().Add(ttl)
	b.tickets[token] = t
	base, method := wire.AssetReadPath, http.MethodGet
	if t.upload {
		base, method = wire.AssetUploadPath, http.MethodPut
	}
	return token, wire.AssetTicket{URL: base + url.PathEscape(t.sessionID) + "/" + token, Method: method, Path: t.path, ExpiresAt: t.expires.UnixMilli()}
}

// issueUpload reserves the session's one upload slot and issues its ticket.
func (b *ticketBook) issueUpload(sessionID, origin, p string, size int64, ttl time.Duration) (wire.AssetTicket, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slot := b.uploading[sessionID]; slot != nil && (slot.started || time.Now().Before(slot.expires)) {
		return wire.AssetTicket{}, wire.Errorf(wire.CodeAssetUploadBusy, "session %s is already uploading %s; one upload at a time", sessionID, slot.path).
			WithDetails(map[string]any{"path": p, "uploading": slot.path})
	}
	token, t := b.issueLocked(&ticket{upload: true, sessionID: sessionID, origin: origin, path: p, size: size}, ttl)
	b.uploading[sessionID] = &uploadSlot{token: token, path: p, expires: time.Now().Add(ttl)}
	return t, nil
}

// sweepLocked forgets tickets long expired, and used marks long past.
func (b *ticketBook) sweepLocked() {
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
func (b *ticketBook) redeem(upload bool, sessionID, token, origin string) (*ticket, error) {
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
func (b *ticketBook) spend(token string) {
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
func (b *ticketBook) uploadDone(sessionID, token string) {
	b.mu.Lock()
	if slot := b.uploading[sessionID]; slot != nil && slot.token == token {
		delete(b.uploading, sessionID)
	}
	b.mu.Unlock()
}
