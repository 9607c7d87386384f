//go:build linux

package peercred

import (
	"encoding/binary"
	"errors"
	"net"
	"syscall"
	"testing"
)

// diagReply builds the kernel's answer to a SOCK_DIAG_BY_FAMILY request:
// one netlink message holding a struct inet_diag_msg for the socket want
// (ports and addresses, 36 bytes), owned by uid, with the given inode.
func diagReply(want []byte, uid, inode uint32) []byte {
	ne := binary.NativeEndian
	msg := make([]byte, syscall.NLMSG_HDRLEN+72)
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], sockDiagByFamily)
	ne.PutUint32(msg[8:], 1)
	d := msg[syscall.NLMSG_HDRLEN:]
	d[0], d[1] = syscall.AF_INET, 1 // family, TCP_ESTABLISHED
	copy(d[4:40], want)
	ne.PutUint32(d[64:], uid)
	ne.PutUint32(d[68:], inode)
	return msg
}

// diagWant is a request's sockid for 127.0.0.1:40000 -> 127.0.0.1:7077.
func diagWant() []byte {
	w := make([]byte, 36)
	binary.BigEndian.PutUint16(w[0:], 40000)
	binary.BigEndian.PutUint16(w[2:], 7077)
	copy(w[4:], []byte{127, 0, 0, 1})
	copy(w[20:], []byte{127, 0, 0, 1})
	return w
}

// v4MappedSockID is an IPv4 sockid (ports, then addresses in the first 4
// of 16 bytes) as an IPv6 socket connected to ::ffff:a.b.c.d has it.
func v4MappedSockID(v4 []byte) []byte {
	id := append([]byte(nil), v4[:4]...)
	for _, addr := range [][]byte{v4[4:8], v4[20:24]} {
		id = append(id, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff)
		id = append(id, addr...)
	}
	return id
}

// The answer's parser: a live socket's owner, never a detached socket's
// placeholder uid 0, never another socket's owner.
func TestParseDiagReply(t *testing.T) {
	want := diagWant()
	if uid, err := parseDiagReply(diagReply(want, 1000, 4242), want); err != nil || uid != 1000 {
		t.Errorf("live socket: uid %d, %v", uid, err)
	}
	if uid, err := parseDiagReply(diagReply(want, 0, 0), want); !errors.Is(err, errSocketDetached) {
		t.Errorf("time-wait entry: uid %d, %v; want errSocketDetached", uid, err)
	}
	other := append([]byte(nil), want...)
	other[1]++ // another port: the listener the kernel's lookup fell back to
	if uid, err := parseDiagReply(diagReply(other, 1000, 4242), want); err == nil {
		t.Errorf("another socket's answer: uid %d, want an error", uid)
	}
	mapped := diagReply(v4MappedSockID(want), 1000, 4242)
	mapped[syscall.NLMSG_HDRLEN] = syscall.AF_INET6
	if uid, err := parseDiagReply(mapped, want); err != nil || uid != 1000 {
		t.Errorf("an IPv6 client socket connected to ::ffff:127.0.0.1: uid %d, %v", uid, err)
	}
	mapped[syscall.NLMSG_HDRLEN] = syscall.AF_INET
	if uid, err := parseDiagReply(mapped, want); err == nil {
		t.Errorf("an IPv4 answer with v4-mapped addresses: uid %d, want an error", uid)
	}
	short := diagReply(want, 1000, 4242)
	binary.NativeEndian.PutUint32(short[0:], uint32(len(short)-4))
	if uid, err := parseDiagReply(short[:len(short)-4], want); err == nil {
		t.Errorf("an answer without the inode: uid %d, want an error", uid)
	}
}

// FuzzParseDiagReply: whatever the kernel (or a bug) sends back, the
// parser returns an error or the uid of a socket a process holds.
func FuzzParseDiagReply(f *testing.F) {
	want := diagWant()
	f.Add(diagReply(want, 1000, 4242))
	f.Add(diagReply(want, 0, 0))
	f.Add(diagReply(want, 0xfffffffe, 1))
	errMsg := make([]byte, syscall.NLMSG_HDRLEN+4)
	binary.NativeEndian.PutUint32(errMsg[0:], uint32(len(errMsg)))
	binary.NativeEndian.PutUint16(errMsg[4:], syscall.NLMSG_ERROR)
	binary.NativeEndian.PutUint32(errMsg[syscall.NLMSG_HDRLEN:], ^uint32(syscall.ENOENT)+1) // -ENOENT
	f.Add(errMsg)
	f.Add(append(diagReply(want, 1000, 0), diagReply(want, 1000, 7)...))
	f.Add([]byte{})
	mapped := diagReply(v4MappedSockID(want), 1000, 4242)
	mapped[syscall.NLMSG_HDRLEN] = syscall.AF_INET6
	f.Add(mapped)
	f.Fuzz(func(t *testing.T, reply []byte) {
		uid, err := parseDiagReply(reply, want)
		if err != nil {
			if uid != -1 {
				t.Fatalf("an error with uid %d", uid)
			}
			return
		}
		// Success needs a whole answer for this very socket (in its own
		// family's form), with an inode, and the uid is that answer's.
		ne := binary.NativeEndian
		for j := syscall.NLMSG_HDRLEN + 4; j-4+72 <= len(reply); j++ {
			d := reply[j-4:]
			same := string(d[4:40]) == string(want) || d[0] == syscall.AF_INET6 && string(d[4:40]) == string(v4MappedSockID(want))
			if same && ne.Uint32(d[68:]) != 0 && int(ne.Uint32(d[64:])) == uid {
				return
			}
		}
		t.Fatalf("uid %d from a reply without a held socket for the tuple: %x", uid, reply)
	})
}

// The /proc/net/tcp line parser reads the owner and inode columns.
func TestParseProcSocketLine(t *testing.T) {
	live, ok := parseProcSocketLine("   0: 0100007F:9C40 0100007F:1BA5 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000092a1629a 20 4 30 10 -1")
	if !ok || live.uid != 1000 || live.inode != 4242 || live.local.Port != 40000 || live.remote.Port != 7077 || live.local.IP.String() != "127.0.0.1" {
		t.Errorf("live socket: %+v %v", live, ok)
	}
	tw, ok := parseProcSocketLine("   1: 0100007F:822D 0100007F:957E 06 00000000:00000000 03:0000123B 00000000     0        0 0 3 0000000059bbf85d")
	if !ok || tw.inode != 0 {
		t.Errorf("time-wait entry: %+v %v", tw, ok)
	}
	v6, ok := parseProcSocketLine("   0: 00000000000000000000000001000000:D710 00000000000000000000000001000000:9CD1 01 00000000:00000000 00:00000000 00000000  1000        0 77 1 00000000e69e72e0")
	if !ok || v6.local.IP.String() != "::1" || v6.uid != 1000 || v6.inode != 77 {
		t.Errorf("IPv6 socket: %+v %v", v6, ok)
	}
	for _, bad := range []string{"", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
		"   0: 0100007F:9C40 0100007F:1BA5 01 00000000:00000000 00:00000000 00000000  -1 0 4242",
		"   0: 0100007F:9C40 0100007F 01 00000000:00000000 00:00000000 00000000  1000 0 4242"} {
		if e, ok := parseProcSocketLine(bad); ok {
			t.Errorf("parseProcSocketLine(%q) = %+v, want not ok", bad, e)
		}
	}
}

// FuzzParseProcSocketLine: any line parses to a whole entry or to nothing.
func FuzzParseProcSocketLine(f *testing.F) {
	f.Add("   0: 0100007F:9C40 0100007F:1BA5 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000092a1629a 20 4 30 10 -1")
	f.Add("   1: 0100007F:822D 0100007F:957E 06 00000000:00000000 03:0000123B 00000000     0        0 0 3 0000000059bbf85d")
	f.Add("   0: 00000000000000000000000001000000:D710 00000000000000000000000001000000:9CD1 06 00000000:00000000 03:00001122 00000000     0        0 0 3 00000000e69e72e0")
	f.Add("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode")
	f.Add("0: :: :: 0 0 0 0 4294967295 0 18446744073709551615")
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseProcSocketLine(line)
		if !ok {
			return
		}
		if e.local == nil || e.remote == nil || e.uid < 0 || e.local.Port > 0xffff || e.remote.Port > 0xffff {
			t.Fatalf("parseProcSocketLine(%q) = %+v", line, e)
		}
		if n := len(e.local.IP); n != 4 && n != 16 {
			t.Fatalf("parseProcSocketLine(%q): a %d-byte address", line, n)
		}
	})
}

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:B0FB": "127.0.0.1:45307",
	} {
		got, ok := parseProcAddr(in)
		if !ok {
			t.Fatalf("%s: not parsed", in)
		}
		w, _ := net.ResolveTCPAddr("tcp", want)
		if !got.IP.Equal(w.IP) || got.Port != w.Port {
			t.Errorf("%s = %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "zz:1", "0100007F", "0100007F:XYZ", "01007F:1"} {
		if _, ok := parseProcAddr(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
