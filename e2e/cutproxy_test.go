package e2e

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// cutProxy forwards 127.0.0.1 TCP connections to Core so a test can cut a
// page's connection while Core stays up (a network blip, a laptop lid):
// Cut closes every open connection and refuses new ones for a while.
type cutProxy struct {
	l      net.Listener
	target string

	mu          sync.Mutex
	conns       []net.Conn
	refuseUntil time.Time
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{l: l, target: target}
	t.Cleanup(func() { l.Close(); p.Cut(0) })
	go p.serve()
	return p
}

// URL is the proxy's http://127.0.0.1:PORT.
func (p *cutProxy) URL() string { return "http://" + p.l.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := time.Now().Before(p.refuseUntil)
		p.mu.Unlock()
		if refuse {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

// Cut closes every proxied connection and refuses new ones for d.
func (p *cutProxy) Cut(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuseUntil = time.Now().Add(d)
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
