package commands

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
)

// Start-up says where Core really listens, and an address beyond loopback
// comes with a warning that names what it exposes (issue 20: --addr [::]
// listened on every interface under a banner that said 127.0.0.1).
func TestAnnounceListening(t *testing.T) {
	cases := []struct {
		addr     *net.TCPAddr
		shown    string // in the banner
		exposure string // in the warning; "" for none
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7077}, "127.0.0.1:7077", ""},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 7077}, "[::1]:7077", ""},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 7077}, "[::]:7077", "every network interface"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 7077}, "0.0.0.0:7077", "every network interface"},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 7077}, "192.0.2.7:7077", "192.0.2.7"},
	}
	for _, tc := range cases {
		var logs, banner bytes.Buffer
		announceListening(log.New(&logs), &banner, tc.addr, "http://127.0.0.1:7077")
		if !strings.Contains(banner.String(), tc.shown) {
			t.Errorf("%s: the banner does not show the address:\n%s", tc.shown, banner.String())
		}
		warned := strings.Contains(logs.String(), "WARN")
		if warned != (tc.exposure != "") {
			t.Errorf("%s: warned=%v:\n%s", tc.shown, warned, logs.String())
		}
		if tc.exposure != "" {
			for _, want := range []string{tc.exposure, "WebSocket", "agent", "MCP"} {
				if !strings.Contains(logs.String(), want) || !strings.Contains(banner.String(), tc.exposure) {
					t.Errorf("%s: the warning does not name %q:\nlog: %s\nbanner: %s", tc.shown, want, logs.String(), banner.String())
				}
			}
		}
	}
}
