package wire

import "strings"

// Core proves to its clients that it is the Core of its state directory
// before they send it anything secret (docs/security.md, "Clients check
// that they talk to Core"). Core holds a signing key (ECDSA P-256) in
// <state-dir>/CoreKeyFile, made on its first start and kept; a client sends
// a fresh nonce and checks Core's signature over CoreProofMessage(nonce)
// against the public key it expects: the one in the state directory, the
// one Core put in an agent's environment (EnvCoreKey), or, for a page, the
// one it remembered when Core first approved it.
const (
	// CoreKeyFile in the state directory holds Core's private signing key
	// (PKCS #8, PEM), mode 0600.
	CoreKeyFile = "core-key"
	// EnvCoreKey is the public key of the Core that started an agent,
	// in every provider process's environment.
	EnvCoreKey = "PEDELEC_CORE_KEY"
	// CoreProofPath answers GET ?nonce=<nonce> with a CoreProof. It takes
	// no credential: the proof is what the client checks before it sends one.
	CoreProofPath = "/core-proof"
	// ProofQueryParam, on the /ws URL, asks Core to put a CoreProof of its
	// value in the hello.
	ProofQueryParam = "proof"
	// MaxProofNonce bounds a nonce; a client's is 22 to 64 characters.
	MaxProofNonce = 128
)

// CoreProof is Core's answer to a nonce: its public key (the uncompressed
// P-256 point, base64url without padding) and its signature (r||s, 64
// bytes, base64url) over CoreProofMessage(nonce) with SHA-256, the form
// WebCrypto's ECDSA verify takes.
type CoreProof struct {
	Key       string `json:"key"`
	Signature string `json:"signature"`
}

// CoreProofMessage is what Core signs for a page's nonce (the hello): the
// nonce behind a label, so a signature made here means nothing anywhere
// else.
func CoreProofMessage(nonce string) []byte { return []byte("pedelec-core-proof/v1\n" + nonce) }

// CoreAddressProofMessage is what CoreProofPath signs: the address the
// client asked at (its Host, as it sent it) and its nonce, under a label
// of its own. Core signs any page's nonce in the hello, so a program at
// another address could have a page ask for the nonce of a client that
// dialed it; that signature is not this one, and a browser sends the Host
// of the address it reached, so a page cannot get one for another address.
func CoreAddressProofMessage(host, nonce string) []byte {
	return []byte("pedelec-core-proof/address/v1\n" + strings.ToLower(host) + "\n" + nonce)
}
