package runtime

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// newID returns prefix + 26 characters of crypto randomness (130 bits):
// session ids and secrets must not be guessable by another page or process.
func newID(prefix string) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("pedelec: crypto/rand failed: " + err.Error())
	}
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
