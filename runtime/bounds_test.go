package runtime

import (
	"encoding/base32"
	"os"
	"strings"
	"testing"
)

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
