package coreauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"math/big"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// NewNonce is a fresh client nonce: 32 random bytes, base64url.
func NewNonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return b64.EncodeToString(b)
}

// errOtherKey: the proof is good, but of another key than the one expected.
var errOtherKey = errors.New("another key")

// Verify checks p: a valid signature over wire.CoreProofMessage(nonce) by
// the key want (a page's hello). errOtherKey when p is of another key.
func Verify(want, nonce string, p wire.CoreProof) error {
	return verify(want, wire.CoreProofMessage(nonce), p)
}

// VerifyAddress checks p as Verify does, for the proof of a client that
// asked at host (wire.CoreAddressProofMessage).
func VerifyAddress(want, host, nonce string, p wire.CoreProof) error {
	return verify(want, wire.CoreAddressProofMessage(host, nonce), p)
}

func verify(want string, msg []byte, p wire.CoreProof) error {
	if p.Key != want {
		return errOtherKey
	}
	raw, err := b64.DecodeString(p.Key)
	if err != nil {
		return errors.New("its key is not base64url")
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return errors.New("its key is not a P-256 point")
	}
	sig, err := b64.DecodeString(p.Signature)
	if err != nil || len(sig) != 64 {
		return errors.New("its signature is not 64 bytes of base64url")
	}
	digest := sha256.Sum256(msg)
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("its signature over this client's nonce and address does not verify (a proof made for another address or for a page is not this one; a `pedelec serve` older than this client signs without the address: restart it)")
	}
	return nil
}

// short is the head of a key, enough to tell two apart in a message.
func short(key string) string {
	if len(key) > 12 {
		return key[:12] + "…"
	}
	return key
}
