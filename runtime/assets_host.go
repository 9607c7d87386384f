package runtime

import (
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/assets"
)

// assetHost is Core as the asset transfers see it.
type assetHost struct{ c *Core }

func (h assetHost) OriginAllowed(r *http.Request) (string, bool) {
	origin, ok := h.c.originAllowed(r)
	// An origin the user approved uses its sessions' assets like a
	// pre-approved one (runtime/page's origin_gate.go).
	return origin, ok || (origin != "" && h.c.book.Approved(origin))
}

func (h assetHost) Session(id string) (assets.Session, error) {
	s, err := h.c.session(id)
	if err != nil {
		return nil, err
	}
	return s, nil // a session is what the transfers need of it (assets.Session)
}
