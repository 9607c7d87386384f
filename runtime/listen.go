package runtime

import (
	"errors"
	"net"
	"strconv"
	"syscall"

	"github.com/kaoruisaac/pedelec/runtime/dualstack"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Listen binds addr ("127.0.0.1:0" picks a free port) and gives the base
// URL of what it bound. `pedelec serve` binds before it builds Core, so a
// taken port fails before the state directory is made or opened: a second
// `pedelec serve` leaves the first one's directory as it was. A taken port
// is ADDR_IN_USE, naming the port and what to do. A loopback address is
// bound in both families (runtime/dualstack), so nobody else can take
// [::1] beside 127.0.0.1 on Core's port.
func Listen(addr string) (net.Listener, string, error) {
	l, err := dualstack.Listen(addr)
	if errors.Is(err, dualstack.ErrOtherInUse) {
		return nil, "", wire.Errorf(wire.CodeAddrInUse,
			"Core's port is free on one loopback family but taken on the other (%v): a client that resolves localhost there would reach that program instead of Core. Find who holds it, or start Core on another port with --addr", err).
			WithDetails(map[string]any{"addr": addr})
	}
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			host, port, _ := net.SplitHostPort(addr)
			if host == "" {
				host = "127.0.0.1"
			}
			n, _ := strconv.Atoi(port)
			return nil, "", wire.Errorf(wire.CodeAddrInUse,
				"port %s on %s is already in use, perhaps by a Pedelec Core that already runs (see http://%s/healthz): stop that one, or start this one on another port with --addr %s (port 0 picks a free one)",
				port, host, net.JoinHostPort(host, port), net.JoinHostPort(host, "0")).
				WithDetails(map[string]any{"addr": addr, "port": n})
		}
		return nil, "", err
	}
	return l, baseURL(l.Addr()), nil
}
