package peercred

import (
	"net"
	"os"
	"testing"
)

// The peer check finds this very process as the owner of its own loopback
// connection.
func TestSocketOwnerIsThisUser(t *testing.T) {
	if !supported {
		t.Skip("no peer check on this platform")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, err := socketOwner(c.LocalAddr().(*net.TCPAddr), l.Addr().(*net.TCPAddr))
	if err != nil || uid != os.Getuid() {
		t.Fatalf("socketOwner = %d, %v; want %d", uid, err, os.Getuid())
	}
}
