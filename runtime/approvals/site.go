package approvals

import (
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"golang.org/x/net/publicsuffix"
)

// Site is the site an origin belongs to: its registrable domain (the
// public suffix plus one label: a.b.example.co.uk → example.co.uk), or
// the host itself for an IP address or a name without a known suffix
// owner (localhost). Whoever owns a domain can make any number of
// subdomains, each an origin of its own; bounds that one site must not
// exceed count per Site.
func Site(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return origin
	}
	host := strings.ToLower(u.Hostname())
	if net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return host
	}
	if site, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return site
	}
	return host
}

// roomLocked refuses a new origin request when its site or all sites
// already have as many waiting as they may. The error names no count: a
// page must not learn how many other sites wait (or which); Core's log
// and the console show the user.
func (b *Book) roomLocked(origin string) error {
	site, ofSite := Site(origin), 0
	for o := range b.byOrigin {
		if Site(o) == site {
			ofSite++
		}
	}
	if ofSite >= b.opts.MaxPendingPerSite {
		return wire.Errorf(wire.CodeCreateSessionNotApproved,
			"other pages of %s already wait for the user's approval; %s may ask again once they are decided or expire", site, origin).
			WithDetails(map[string]any{"origin": origin})
	}
	if len(b.byOrigin) >= b.opts.MaxPendingOrigins {
		return wire.Errorf(wire.CodeCreateSessionNotApproved,
			"too many sites already wait for the user's approval; %s may ask again once they are decided or expire", origin).
			WithDetails(map[string]any{"origin": origin})
	}
	return nil
}

// cooledDownLocked refuses an origin the user rejected a moment ago, so a
// rejected site cannot put its approval window up again on every click.
func (b *Book) cooledDownLocked(origin string) error {
	until, ok := b.rejected[origin]
	if !ok {
		return nil
	}
	now := b.opts.Now()
	if !now.Before(until) {
		delete(b.rejected, origin)
		return nil
	}
	return wire.Errorf(wire.CodeApprovalRejected, "the user rejected %s; it may ask again after %s (or the user runs `pedelec approve %s`)",
		origin, until.UTC().Format(time.RFC3339), origin).
		WithDetails(map[string]any{"origin": origin, "reason": "", "retryAfterMs": until.Sub(now).Milliseconds()})
}
