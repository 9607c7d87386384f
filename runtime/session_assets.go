package runtime

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Session assets (runtime/assets) as Core offers them: the page's
// WebSocket methods that list assets and issue transfer tickets, and the
// adapter through which the transfer endpoints find Core's sessions.

func init() {
	// Registered here so the asset methods stay in this file; dispatch.go
	// runs them like any other method.
	methods[wire.MethodListAssets] = handleListAssets
	methods[wire.MethodAssetUploadTicket] = handleAssetUploadTicket
	methods[wire.MethodAssetReadTicket] = handleAssetReadTicket
}

func (s *Session) assetDir() assets.Dir { return assets.SessionDir(s.dirs.root) }

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
	list, err := s.assetDir().List()
	if err != nil {
		return nil, nil, err
	}
	return wire.ListAssetsResult{Assets: list}, nil, nil
}

func handleAssetUploadTicket(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.AssetUploadTicketParams
	s, werr := c.assetSession(params, &p, func() error { return assets.CheckUpload(p.Path, p.SizeBytes) })
	if werr != nil {
		return nil, nil, werr
	}
	t, werr := c.core.transfers.UploadTicket(s.id, c.origin, p.Path, *p.SizeBytes)
	if werr != nil {
		return nil, nil, werr
	}
	return t, nil, nil
}

func handleAssetReadTicket(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.AssetReadTicketParams
	s, werr := c.assetSession(params, &p, func() error { return assets.CheckPath(p.Path) })
	if werr != nil {
		return nil, nil, werr
	}
	t, werr := c.core.transfers.ReadTicket(s.assetDir(), s.id, c.origin, p.Path)
	if werr != nil {
		return nil, nil, werr
	}
	return t, nil, nil
}

// assetHost is Core as the asset transfers see it.
type assetHost struct{ c *Core }

func (h assetHost) OriginAllowed(r *http.Request) (string, bool) {
	origin, ok := h.c.originAllowed(r)
	// An origin the user approved uses its sessions' assets like a
	// pre-approved one (origin_gate.go).
	return origin, ok || (origin != "" && h.c.book.Approved(origin))
}

func (h assetHost) Session(id string) (assets.Session, error) {
	s, err := h.c.session(id)
	if err != nil {
		return nil, err
	}
	return sessionAssets{s}, nil
}

// sessionAssets is a session as the asset transfers see it.
type sessionAssets struct{ s *Session }

func (a sessionAssets) Assets() assets.Dir { return a.s.assetDir() }
func (a sessionAssets) Ended() bool        { return a.s.isEnded() }
func (a sessionAssets) Log() assets.Logger { return a.s.log }
