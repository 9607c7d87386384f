package dualstack

import (
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
)

// Core on 127.0.0.1 also holds [::1] on the same port, and serves both.
func TestBothFamiliesHeld(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if _, ok := l.(*both); !ok {
		t.Skip("SKIPPED: this machine has no IPv6 loopback")
	}
	if taken, err := net.Listen("tcp", "[::1]:"+port); err == nil {
		taken.Close()
		t.Fatalf("[::1]:%s could be taken beside Core", port)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		c, err := net.Dial("tcp", net.JoinHostPort(host, port))
		if err != nil {
			t.Fatalf("dial %s: %v", host, err)
		}
		got, _ := io.ReadAll(c)
		c.Close()
		if string(got) != "hi" {
			t.Fatalf("%s: got %q", host, got)
		}
	}
	l.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
}

// Someone already on [::1]:P: Core does not start beside it on 127.0.0.1:P.
func TestOtherFamilyTaken(t *testing.T) {
	squat, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("SKIPPED: this machine has no IPv6 loopback")
	}
	defer squat.Close()
	port := strconv.Itoa(squat.Addr().(*net.TCPAddr).Port)
	l, err := Listen("127.0.0.1:" + port)
	if err == nil {
		l.Close()
		t.Fatal("Core started beside a listener on [::1]")
	}
	if !errors.Is(err, ErrOtherInUse) {
		t.Fatalf("err = %v", err)
	}
}
