// Package dualstack binds Core's loopback address in both families. A
// client that resolves `localhost` may try [::1] before 127.0.0.1 (or
// only it); if Core held just one of them, another local user could take
// the other on the same port and receive what that client sends Core. So
// Core binds 127.0.0.1:P and [::1]:P together and serves both.
package dualstack

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// ErrOtherInUse wraps the error when the other family's address is taken.
var ErrOtherInUse = errors.New("the other loopback family's address is in use")

// Listen binds addr; for a loopback host (127.0.0.1, ::1, localhost) it
// binds the same port in the other family too and returns one listener of
// both, whose Addr is the one asked for. A machine without IPv6 (or IPv4)
// gets the one family it has: nobody can take the other there either. A
// taken other address is an error wrapping ErrOtherInUse, unless the port
// was 0, in which case another free port is tried.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	primary, other := host, ""
	switch host {
	case "127.0.0.1":
		other = "::1"
	case "::1":
		other = "127.0.0.1"
	case "localhost":
		primary, other = "127.0.0.1", "::1"
	default:
		return net.Listen("tcp", addr)
	}
	for attempt := 0; ; attempt++ {
		l, err := net.Listen("tcp", net.JoinHostPort(primary, port))
		if err != nil {
			return nil, err
		}
		p := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		o, err := net.Listen("tcp", net.JoinHostPort(other, p))
		switch {
		case err == nil:
			return newBoth(l, o), nil
		case errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT):
			return l, nil // this machine has no such family
		}
		l.Close()
		if port == "0" && errors.Is(err, syscall.EADDRINUSE) && attempt < 20 {
			continue
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%w: %s: %w", ErrOtherInUse, net.JoinHostPort(other, p), err)
		}
		return nil, err
	}
}

// both accepts from two listeners as one.
type both struct {
	primary, other net.Listener
	accepted       chan accepted
	done           chan struct{}
	once           sync.Once
}

type accepted struct {
	conn net.Conn
	err  error
}

func newBoth(primary, other net.Listener) *both {
	b := &both{primary: primary, other: other, accepted: make(chan accepted), done: make(chan struct{})}
	go b.acceptFrom(primary)
	go b.acceptFrom(other)
	return b
}

// acceptFrom hands each connection of l to Accept, until l is closed.
func (b *both) acceptFrom(l net.Listener) {
	for {
		c, err := l.Accept()
		select {
		case b.accepted <- accepted{c, err}:
		case <-b.done:
			if c != nil {
				c.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

func (b *both) Accept() (net.Conn, error) {
	select {
	case a := <-b.accepted:
		return a.conn, a.err
	case <-b.done:
		return nil, net.ErrClosed
	}
}

func (b *both) Close() error {
	b.once.Do(func() { close(b.done) })
	err := b.primary.Close()
	b.other.Close()
	return err
}

func (b *both) Addr() net.Addr { return b.primary.Addr() }
