// Package ids makes Core's random ids and the public names derived from them.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// New returns prefix + crypto/rand.Text in lower case: 26 base32
// characters, at least 128 random bits. Session ids, secrets, tokens,
// tickets and handles must not be guessable by another page or process;
// every random id in Core is made here.
func New(prefix string) string {
	return prefix + strings.ToLower(rand.Text())
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
