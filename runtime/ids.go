package runtime

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// newID returns prefix + 16 bytes (128 bits) of crypto randomness, written
// as 26 base32 characters (26 x 5 = 130 bits of room, 128 of them random):
// session ids and secrets must not be guessable by another page or process.
func newID(prefix string) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("pedelec: crypto/rand failed: " + err.Error())
	}
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
