// Package coreauth is how Core proves to its clients that it is the Core
// of its state directory before they send it a secret, and how they check
// (docs/security.md, "Clients check that they talk to Core"). Core keeps a
// signing key (ECDSA P-256) in <state-dir>/core-key, made on its first
// start and kept across restarts; each client sends a fresh nonce and
// checks Core's signature against the public key it expects, on the very
// connection it then sends its request on (Dialer). The same proof
// travels in the WebSocket hello for pages, which remember the key.
//
// ECDSA P-256, not Ed25519: every browser's WebCrypto verifies P-256 (and
// only in secure contexts), while Ed25519 reached Chromium's only lately;
// one key type serves the pages and the CLI alike.
package coreauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"

	"github.com/kaoruisaac/pedelec/runtime/secretfile"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

var b64 = base64.RawURLEncoding

// Identity is Core's signing key.
type Identity struct {
	priv *ecdsa.PrivateKey
	key  string // the public key, as clients expect it (wire.CoreProof.Key)
}

// LoadOrCreate reads Core's key from stateDir, making it on the first
// start. The file is created exclusively with mode 0600 and read only as a
// regular file (runtime/secretfile): a link planted there is refused.
func LoadOrCreate(stateDir string) (*Identity, error) {
	data, err := secretfile.Read(stateDir, wire.CoreKeyFile)
	if errors.Is(err, fs.ErrNotExist) {
		priv, gerr := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if gerr != nil {
			return nil, gerr
		}
		der, gerr := x509.MarshalPKCS8PrivateKey(priv)
		if gerr != nil {
			return nil, gerr
		}
		if _, gerr := secretfile.Create(stateDir, wire.CoreKeyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); gerr != nil {
			return nil, fmt.Errorf("create Core's key %s: %w", keyPath(stateDir), gerr)
		}
		data, err = secretfile.Read(stateDir, wire.CoreKeyFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read Core's key %s: %w", keyPath(stateDir), err)
	}
	id, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("the Core key %s is unreadable (%w): pages that trusted this Core know it by that key, so Core does not replace it by itself; move the file away to make a new one (pages then ask you to trust the new Core)", keyPath(stateDir), err)
	}
	return id, nil
}

// PublicKey is the public key of the Core of stateDir, for a client of
// Core's own user (it reads the private key file, which only that user can).
func PublicKey(stateDir string) (string, error) {
	data, err := secretfile.Read(stateDir, wire.CoreKeyFile)
	if err != nil {
		return "", err
	}
	id, err := parse(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", keyPath(stateDir), err)
	}
	return id.key, nil
}

func keyPath(stateDir string) string { return filepath.Join(stateDir, wire.CoreKeyFile) }

func parse(data []byte) (*Identity, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, errors.New("no PEM private key in it")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 ECDSA key")
	}
	pub, err := priv.PublicKey.Bytes()
	if err != nil {
		return nil, err
	}
	return &Identity{priv: priv, key: b64.EncodeToString(pub)}, nil
}

// Key is Core's public key (wire.CoreProof.Key): what Core puts in an
// agent's environment (wire.EnvCoreKey) and what a page remembers.
func (id *Identity) Key() string { return id.key }

// Prove signs wire.CoreProofMessage(nonce): a page's hello.
func (id *Identity) Prove(nonce string) (wire.CoreProof, error) {
	if err := checkNonce(nonce); err != nil {
		return wire.CoreProof{}, err
	}
	return id.sign(wire.CoreProofMessage(nonce))
}

// ProveAddress signs wire.CoreAddressProofMessage(host, nonce): a client
// that asked at host.
func (id *Identity) ProveAddress(host, nonce string) (wire.CoreProof, error) {
	if err := checkNonce(nonce); err != nil {
		return wire.CoreProof{}, err
	}
	return id.sign(wire.CoreAddressProofMessage(host, nonce))
}

func (id *Identity) sign(msg []byte) (wire.CoreProof, error) {
	digest := sha256.Sum256(msg)
	r, s, err := ecdsa.Sign(rand.Reader, id.priv, digest[:])
	if err != nil {
		return wire.CoreProof{}, err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return wire.CoreProof{Key: id.key, Signature: b64.EncodeToString(sig)}, nil
}

// ServeHTTP answers GET wire.CoreProofPath?nonce=<nonce>. It needs no
// credential: it hands out nothing but a signature over the caller's nonce
// and the address (Host) the caller asked at.
func (id *Identity) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, err := id.ProveAddress(r.Host, r.URL.Query().Get("nonce"))
	if err != nil {
		wire.WriteJSON(w, http.StatusBadRequest, wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	wire.WriteJSON(w, http.StatusOK, p)
}

// checkNonce: a nonce is 16 to wire.MaxProofNonce base64url characters.
func checkNonce(nonce string) error {
	if len(nonce) < 16 || len(nonce) > wire.MaxProofNonce {
		return wire.Errorf(wire.CodeInvalidInput, "a proof nonce is 16 to %d base64url characters; got %d", wire.MaxProofNonce, len(nonce))
	}
	for _, c := range nonce {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return wire.Errorf(wire.CodeInvalidInput, "a proof nonce is base64url characters only; got %q", c)
		}
	}
	return nil
}
