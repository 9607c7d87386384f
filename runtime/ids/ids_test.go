package ids

import (
	"encoding/base32"
	"os"
	"strings"
	"testing"
)

// The secret has 128 random bits, as docs/security.md says.
func TestSecretBits(t *testing.T) {
	id := strings.TrimPrefix(New("k_"), "k_")
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(id))
	if err != nil || len(raw)*8 != 128 {
		t.Fatalf("secret %q decodes to %d bits: %v", id, len(raw)*8, err)
	}
	doc, _ := os.ReadFile("../../docs/security.md")
	if !strings.Contains(string(doc), "128 bits") || strings.Contains(string(doc), "130 bits") {
		t.Error("docs/security.md does not say the secret has 128 bits")
	}
}
