package runtime

import (
	"encoding/base32"
	"net"
	"os"
	"strings"
	"testing"
)

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

// The peer check finds this very process as the owner of its own loopback
// connection.
func TestSocketOwnerIsThisUser(t *testing.T) {
	if !peerCheckSupported {
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

func TestRequestIDRecovered(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for frame, want := range map[string]int64{
		`{"id":5,"params":` + deep + `}`:      5,
		`{"params":` + deep + `,"id":6}`:      6,
		`{"type":"request","id":"x"}`:         0,
		`[1,2]`:                               0,
		`{"id":7,"method":"m","params":{"x":`: 7,
	} {
		if got := requestID([]byte(frame)); got != want {
			t.Errorf("requestID(%.40q) = %d, want %d", frame, got, want)
		}
	}
}

func TestJSONDepth(t *testing.T) {
	for in, want := range map[string]int{
		`{}`: 1, `{"a":{"b":[1]}}`: 3, `{"a":"{{{[[["}`: 1, `{"a":"\"{"}`: 1, `"x"`: 0,
	} {
		if got := jsonDepth([]byte(in)); got != want {
			t.Errorf("jsonDepth(%s) = %d, want %d", in, got, want)
		}
	}
}

// The secret has 128 random bits, as docs/security.md says.
func TestSecretBits(t *testing.T) {
	id := strings.TrimPrefix(newID("k_"), "k_")
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(id))
	if err != nil || len(raw)*8 != 128 {
		t.Fatalf("secret %q decodes to %d bits: %v", id, len(raw)*8, err)
	}
	doc, _ := os.ReadFile("../docs/security.md")
	if !strings.Contains(string(doc), "128 bits") || strings.Contains(string(doc), "130 bits") {
		t.Error("docs/security.md does not say the secret has 128 bits")
	}
}
