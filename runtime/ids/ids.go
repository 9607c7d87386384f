// Package ids makes Core's random ids and the public names derived from them.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// New returns prefix + 16 bytes (128 bits) of crypto randomness, written
// as 26 base32 characters (26 x 5 = 130 bits of room, 128 of them random):
// session ids and secrets must not be guessable by another page or process.
func New(prefix string) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("pedelec: crypto/rand failed: " + err.Error())
	}
	return idText(prefix, b)
}

// Hashed derives a public name from a session id: prefix + the first 16
// bytes of SHA-256(purpose NUL id), written as New writes ids. The id
// holds 128 random bits, so the name cannot be turned back into it, and
// no key is needed or can be lost between restarts; purpose keeps the
// names of different uses apart.
func Hashed(prefix, purpose, id string) string {
	sum := sha256.Sum256([]byte(purpose + "\x00" + id))
	return idText(prefix, sum[:16])
}

func idText(prefix string, b []byte) string {
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
