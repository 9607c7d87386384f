package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func rootsTestCert(t *testing.T, name string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func rootsTestWrite(t *testing.T, path string, blocks ...*pem.Block) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, blk := range blocks {
		_ = pem.Encode(&b, blk)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func certBlock(der []byte) *pem.Block { return &pem.Block{Type: "CERTIFICATE", Bytes: der} }

func envOf(kv ...string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

func TestCodexTrustedRoots(t *testing.T) {
	a, b, c := rootsTestCert(t, "a"), rootsTestCert(t, "b"), rootsTestCert(t, "c")
	tmp := t.TempDir()
	file, dir := filepath.Join(tmp, "bundle.pem"), filepath.Join(tmp, "certs")
	rootsTestWrite(t, file, certBlock(a), certBlock(b))
	rootsTestWrite(t, filepath.Join(dir, "b.pem"), certBlock(b))
	rootsTestWrite(t, filepath.Join(dir, "c.pem"), certBlock(c), &pem.Block{Type: "X509 CRL", Bytes: []byte{1}})
	trusted := filepath.Join(tmp, "trusted.pem")
	rootsTestWrite(t, trusted, certBlock(a), &pem.Block{Type: "TRUSTED CERTIFICATE", Bytes: b})
	none := certSources{}

	cases := []struct {
		name   string
		lookup func(string) (string, bool)
		sys    certSources
		want   [][]byte // nil: leave the environment alone
	}{
		{"file and directory: their union", envOf("SSL_CERT_FILE", file, "SSL_CERT_DIR", dir), none, [][]byte{a, b, c}},
		{"a directory alone", envOf("SSL_CERT_DIR", dir), none, [][]byte{b, c}},
		{"directories listed with colons", envOf("SSL_CERT_DIR", dir+string(os.PathListSeparator)+dir), none, nil},
		{"a file alone reads no directory", envOf("SSL_CERT_FILE", file), none, nil},
		{"an empty variable", envOf("SSL_CERT_FILE", "", "SSL_CERT_DIR", dir), none, nil},
		{"a file Codex reads differently from rustls", envOf("SSL_CERT_FILE", trusted, "SSL_CERT_DIR", dir), none, nil},
		{"a directory that cannot be read", envOf("SSL_CERT_DIR", filepath.Join(tmp, "missing")), none, nil},
		{"the system's bundle and directory", envOf(), certSources{dirs: []string{tmp}, files: []string{"bundle.pem"}}, [][]byte{a, b, c}},
		{"system candidates that differ", envOf(), certSources{dirs: []string{tmp}, files: []string{"bundle.pem", "trusted.pem"}}, nil},
		{"no system directory", envOf(), certSources{dirs: []string{filepath.Join(tmp, "certs")}, files: []string{"b.pem"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := codexTrustedRoots(tc.lookup, tc.sys)
			if tc.want == nil {
				if ok {
					t.Fatalf("got %d certificates, want the environment left alone", len(got))
				}
				return
			}
			if !ok || len(got) != len(tc.want) {
				t.Fatalf("got %d certificates (ok %v), want %d", len(got), ok, len(tc.want))
			}
			for i := range got {
				if string(got[i]) != string(tc.want[i]) {
					t.Errorf("certificate %d differs", i)
				}
			}
		})
	}
}

func TestCodexRootsEnvWritesOneBundleAndAnEmptyDirectory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux reads roots from files")
	}
	a, b := rootsTestCert(t, "a"), rootsTestCert(t, "b")
	tmp := t.TempDir()
	file, dir, home := filepath.Join(tmp, "bundle.pem"), filepath.Join(tmp, "certs"), filepath.Join(tmp, "home")
	rootsTestWrite(t, file, certBlock(a))
	rootsTestWrite(t, filepath.Join(dir, "b.pem"), certBlock(b))
	env, err := codexRootsEnv(envOf("SSL_CERT_FILE", file, "SSL_CERT_DIR", dir), home, certSources{})
	if err != nil {
		t.Fatal(err)
	}
	if env["SSL_CERT_FILE"] != filepath.Join(home, codexRootsFile) || env["SSL_CERT_DIR"] != filepath.Join(home, codexRootsDir) {
		t.Fatalf("env = %v", env)
	}
	if entries, err := os.ReadDir(env["SSL_CERT_DIR"]); err != nil || len(entries) != 0 {
		t.Errorf("the directory: %d entries, %v; want it empty", len(entries), err)
	}
	data, _ := os.ReadFile(env["SSL_CERT_FILE"])
	if n := strings.Count(string(data), "BEGIN CERTIFICATE"); n != 2 {
		t.Errorf("the bundle holds %d certificates, want 2", n)
	}

	// A certificate that does not parse would make Codex refuse the whole
	// bundle: the environment is left alone.
	rootsTestWrite(t, filepath.Join(dir, "bad.pem"), certBlock([]byte("not DER")))
	if env, err := codexRootsEnv(envOf("SSL_CERT_FILE", file, "SSL_CERT_DIR", dir), filepath.Join(tmp, "home2"), certSources{}); err != nil || env != nil {
		t.Errorf("with a certificate that does not parse: env %v, err %v; want nil", env, err)
	}
}

func TestCodexACPPrepareLeavesRootsToTheProvidersEnvSettings(t *testing.T) {
	tmp := t.TempDir()
	file, dir := filepath.Join(tmp, "bundle.pem"), filepath.Join(tmp, "certs")
	rootsTestWrite(t, file, certBlock(rootsTestCert(t, "a")))
	rootsTestWrite(t, filepath.Join(dir, "b.pem"), certBlock(rootsTestCert(t, "b")))
	turn := &Turn{WorkDir: filepath.Join(tmp, "s", "work"), Env: []string{"SSL_CERT_FILE=" + file, "SSL_CERT_DIR=" + dir}}
	env, err := codexACPPrepare(cliArgs{turn: turn, settings: Settings{Env: map[string]string{"SSL_CERT_DIR": dir}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := env["SSL_CERT_FILE"]; ok {
		t.Errorf("env = %v: the provider's env settings name the roots, Pedelec should not", env)
	}
	if runtime.GOOS == "linux" {
		env, _ = codexACPPrepare(cliArgs{turn: turn})
		if env["SSL_CERT_DIR"] == "" {
			t.Errorf("env = %v, want the session's own roots", env)
		}
	}
}

// What an earlier agent of the session left in the session's Codex
// directory (Codex itself writes there) is not trusted or written through:
// a symlink at the bundle's name is replaced, not followed, and a file in
// the roots directory is removed, or Codex would trust it.
func TestCodexRootsEnvTrustsNothingLeftInTheSessionDirectory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux reads roots from files")
	}
	tmp := t.TempDir()
	dir, home := filepath.Join(tmp, "certs"), filepath.Join(tmp, "home")
	rootsTestWrite(t, filepath.Join(dir, "b.pem"), certBlock(rootsTestCert(t, "b")))
	victim := filepath.Join(tmp, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, codexRootsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(home, codexRootsFile)); err != nil {
		t.Fatal(err)
	}
	rootsTestWrite(t, filepath.Join(home, codexRootsDir, "planted.pem"), certBlock(rootsTestCert(t, "planted")))
	env, err := codexRootsEnv(envOf("SSL_CERT_DIR", dir), home, certSources{})
	if err != nil || env == nil {
		t.Fatalf("env %v, err %v", env, err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep" {
		t.Errorf("the bundle was written through a symlink: the file it named now holds %q", data)
	}
	if fi, err := os.Lstat(env["SSL_CERT_FILE"]); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("the bundle: %v, %v; want a regular file, 0600", fi, err)
	}
	if entries, _ := os.ReadDir(env["SSL_CERT_DIR"]); len(entries) != 0 {
		t.Errorf("the roots directory holds %d entries, want none", len(entries))
	}
}

// A candidate reached through a symlink (Debian's /usr/lib/ssl/certs is
// /etc/ssl/certs) is read once, and agrees with itself.
func TestCodexTrustedRootsReadsALinkedCandidateOnce(t *testing.T) {
	tmp := t.TempDir()
	real, linked := filepath.Join(tmp, "etc"), filepath.Join(tmp, "lib")
	rootsTestWrite(t, filepath.Join(real, "certs", "b.pem"), certBlock(rootsTestCert(t, "b")))
	if err := os.Mkdir(linked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "certs"), filepath.Join(linked, "certs")); err != nil {
		t.Fatal(err)
	}
	var reads int
	readFile = func(p string) ([]byte, error) { reads++; return os.ReadFile(p) }
	defer func() { readFile = os.ReadFile }()
	got, ok := codexTrustedRoots(envOf(), certSources{dirs: []string{real, linked}})
	if !ok || len(got) != 1 || reads != 1 {
		t.Errorf("%d certificates (ok %v) in %d reads, want 1 in 1", len(got), ok, reads)
	}
}

// The newer probe's candidates (a directory outside the dirs × names grid)
// count: one that disagrees leaves the environment alone.
func TestCodexTrustedRootsChecksCertificateDirectoryCandidates(t *testing.T) {
	tmp := t.TempDir()
	rootsTestWrite(t, filepath.Join(tmp, "etc", "certs", "b.pem"), certBlock(rootsTestCert(t, "b")))
	rootsTestWrite(t, filepath.Join(tmp, "other", "c.pem"), certBlock(rootsTestCert(t, "c")))
	if _, ok := codexTrustedRoots(envOf(), certSources{dirs: []string{filepath.Join(tmp, "etc")}, certDirs: []string{filepath.Join(tmp, "other")}}); ok {
		t.Error("a certificate directory candidate that disagrees was ignored")
	}
}
