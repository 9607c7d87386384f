package page

import (
	"context"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Session assets (runtime/assets) as a page reaches them: the WebSocket
// methods that list assets and issue transfer tickets.

// assetSession is sessionFor plus the rule every asset method shares: an
// ending or ended session has no assets any more.
func (c *conn) assetSession(params json.RawMessage, p any, check func() error) (*session.Session, error) {
	s, err := c.sessionFor(params, p, check)
	if err != nil {
		return nil, err
	}
	if s.Ended() {
		return nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended; its assets are gone", s.ID()).
			WithDetails(map[string]any{"sessionId": s.ID()})
	}
	return s, nil
}

func handleListAssets(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	s, werr := c.assetSession(params, &wire.SessionParams{}, nil)
	if werr != nil {
		return nil, nil, werr
	}
	list, err := s.Assets().List()
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
	if err := s.CheckAssetQuota(p.Path, *p.SizeBytes); err != nil {
		return nil, nil, err
	}
	t, werr := c.srv.Transfers.UploadTicket(s.ID(), c.origin, p.Path, *p.SizeBytes)
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
	t, werr := c.srv.Transfers.ReadTicket(s.Assets(), s.ID(), c.origin, p.Path)
	if werr != nil {
		return nil, nil, werr
	}
	return t, nil, nil
}
