//go:build linux

package peercred

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The check's listener judges a connection before reading a byte of it: a
// client that sent its request and closed is refused at accept, whatever
// its uid was, and the next, live, connection is accepted.
func TestPeerListenerRefusesClosedClientAtAccept(t *testing.T) {
	check := New(Options{UID: os.Getuid()})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pl := check.Listener(l)
	defer pl.Close()

	gone, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	gone.Write([]byte("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
	goneAddr := gone.LocalAddr().(*net.TCPAddr)
	gone.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		_, err := sockDiagOwner(goneAddr, l.Addr().(*net.TCPAddr))
		if errors.Is(err, errSocketDetached) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the closed client's socket is still held: %v", err)
		}
	}
	live, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	conn, err := pl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got, want := conn.RemoteAddr().String(), live.LocalAddr().String(); got != want {
		t.Errorf("Accept returned the connection from %s, want the live one from %s", got, want)
	}
	if n := check.Refused(); n != 1 {
		t.Errorf("%d connections refused at accept, want 1 (the closed client's)", n)
	}
}

// A connection of another user gets PEER_NOT_ALLOWED and is closed before
// Core reads its request; the HTTP server never sees it.
func TestPeerListenerAnswersAnotherUserAndCloses(t *testing.T) {
	refused := make(chan Peer, 1)
	check := New(Options{UID: os.Getuid() + 1, // this test's own connections belong to "another user"
		OnRefused: func(p Peer) { refused <- p }})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pl := check.Listener(l)
	defer pl.Close()
	go pl.Accept() // returns when the listener closes: every connection here is refused

	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	var got wire.AgentResult
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusForbidden || got.Error == nil || got.Error.Code != wire.CodePeerNotAllowed {
		t.Fatalf("another user's connection: %d %s (%v)", resp.StatusCode, body, err)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the connection stays open after the refusal")
	}
	// Core logs refusals through OnRefused: it hears of this one, with
	// the uid the kernel named.
	if p := <-refused; p.Allowed || !p.Known || p.UID != os.Getuid() {
		t.Errorf("OnRefused was told %+v", p)
	}
}
