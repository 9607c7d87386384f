package provider

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"runtime"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// Codex builds a new HTTP client for every model request and every MCP tool
// call, and every build loads the trusted roots again through rustls: the
// file SSL_CERT_FILE names and every file in SSL_CERT_DIR, or, with neither
// set, the bundle and the certificate directory it finds on the system
// (/etc/ssl/certs on Debian and Ubuntu: some 290 files). Reading that
// directory is most of Codex's own CPU in a warm turn (three builds a turn,
// 25–35 ms each on a 2-core machine). codexRootsEnv gives Codex one file
// holding exactly the certificates it would have read, and an empty
// directory: the same roots, read from one file. Where that set cannot be
// established with certainty the environment is left alone.

// codexRootsFile and codexRootsDir are created in the session's Codex
// directory.
const (
	codexRootsFile = "trusted-roots.pem"
	codexRootsDir  = "trusted-roots.d"
)

// certSources are the places rustls looks for roots when neither
// SSL_CERT_FILE nor SSL_CERT_DIR is set (the openssl-probe crate's list:
// bundle names inside each directory, and its certs subdirectory; its 0.2
// releases, which codex-acp builds with, name full paths instead, and the
// few outside that grid are listed as such). Every candidate that exists
// must agree, so a candidate too many only makes Pedelec leave the
// environment alone; one too few could drop a root.
type certSources struct {
	dirs     []string // e.g. /etc/ssl
	files    []string // names inside each of dirs, e.g. certs/ca-certificates.crt
	paths    []string // bundles outside dirs × files
	certDirs []string // certificate directories outside dirs/certs
}

var systemCertSources = certSources{
	dirs: []string{"/var/ssl", "/usr/share/ssl", "/usr/local/ssl", "/usr/local/openssl",
		"/usr/local/etc/openssl", "/usr/local/share", "/usr/lib/ssl", "/usr/ssl", "/etc/openssl",
		"/etc/pki/ca-trust/extracted/pem", "/etc/pki/tls", "/etc/ssl", "/etc/certs", "/opt/etc/ssl",
		"/data/data/com.termux/files/usr/etc/tls", "/boot/system/data/ssl"},
	files: []string{"cert.pem", "certs.pem", "ca-bundle.pem", "cacert.pem", "ca-certificates.crt",
		"certs/ca-certificates.crt", "certs/ca-root-nss.crt", "certs/ca-bundle.crt",
		"CARootCertificates.pem", "tls-ca-bundle.pem"},
	paths:    []string{"/etc/ssl/certs/cacert.pem"},
	certDirs: []string{"/etc/security/certificates"},
}

// codexRootsEnv returns SSL_CERT_FILE and SSL_CERT_DIR for Codex, writing
// the bundle into home, or nil when Codex reads no directory anyway or the
// roots it would trust cannot be matched exactly. lookup is the agent's
// environment.
func codexRootsEnv(lookup func(string) (string, bool), home string, sys certSources) (map[string]string, error) {
	if runtime.GOOS != "linux" { // macOS and Windows take roots from the system's store, not files
		return nil, nil
	}
	certs, ok := codexTrustedRoots(lookup, sys)
	if !ok || len(certs) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	for _, der := range certs {
		// Codex refuses the whole bundle a file variable names when one
		// certificate in it does not parse, where rustls skips such a
		// file in a directory: only certificates that parse go in.
		if _, err := x509.ParseCertificate(der); err != nil {
			return nil, nil
		}
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	// Codex writes into home too: what an earlier agent of the session
	// left there is replaced, never written through (a symlink at the
	// bundle's name) or trusted (a file in the directory). home is the
	// session's own (agentDir), so RemoveAll removes a link, not where it
	// points.
	file, dir := filepath.Join(home, codexRootsFile), filepath.Join(home, codexRootsDir)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if _, err := nolink.Dir(home, codexRootsDir); err != nil {
		return nil, err
	}
	if err := nolink.WriteFile(file, b.Bytes()); err != nil {
		return nil, err
	}
	return map[string]string{"SSL_CERT_FILE": file, "SSL_CERT_DIR": dir}, nil
}

// codexTrustedRoots is every certificate Codex would trust, in the order
// it would read them, and whether that set is certain and comes from a
// directory (without one there is nothing to save).
func codexTrustedRoots(lookup func(string) (string, bool), sys certSources) ([][]byte, bool) {
	file, fileSet := lookup("SSL_CERT_FILE")
	dir, dirSet := lookup("SSL_CERT_DIR")
	if (fileSet && file == "") || (dirSet && dir == "") {
		return nil, false // an empty value means different things to Codex and to rustls
	}
	roots := certSet{read: &certReader{}}
	if fileSet || dirSet {
		if !dirSet {
			return nil, false // the file alone: no directory is read
		}
		if fileSet {
			// Codex also reads this file itself and accepts OpenSSL's
			// TRUSTED CERTIFICATE blocks there, which rustls skips: the
			// bundle would lose them.
			if !roots.addFile(file, true) {
				return nil, false
			}
		}
		// Not every rustls version reads a list of directories: one only.
		if len(filepath.SplitList(dir)) != 1 || !roots.addDir(dir) {
			return nil, false
		}
		return roots.list, true
	}
	// Neither is set: rustls takes the first bundle and the first
	// certificate directory it finds. Whichever it finds must hold the same
	// certificates as every other candidate, or the set is not certain.
	var filePaths, dirPaths []string
	for _, d := range sys.dirs {
		for _, name := range sys.files {
			filePaths = append(filePaths, filepath.Join(d, name))
		}
		dirPaths = append(dirPaths, filepath.Join(d, "certs"))
	}
	filePaths, dirPaths = append(filePaths, sys.paths...), append(dirPaths, sys.certDirs...)
	var files, dirs []*certSet
	for _, p := range filePaths {
		if isRegular(p) {
			s := &certSet{read: roots.read}
			if !s.addFile(p, false) {
				return nil, false
			}
			files = append(files, s)
		}
	}
	for _, p := range dirPaths {
		if isDir(p) {
			s := &certSet{read: roots.read}
			if !s.addDir(p) {
				return nil, false
			}
			dirs = append(dirs, s)
		}
	}
	if len(dirs) == 0 || !allSame(files) || !allSame(dirs) {
		return nil, false
	}
	if len(files) > 0 {
		roots.addAll(files[0])
	}
	roots.addAll(dirs[0])
	return roots.list, true
}

// certSet is a list of DER certificates without repeats.
type certSet struct {
	list [][]byte
	seen map[string]bool
	read *certReader
}

// readFile is os.ReadFile (tests count the reads).
var readFile = os.ReadFile

// certReader reads and decodes each file once however many names reach it:
// on Debian every certificate is reached by its hashed link and its named
// link in /etc/ssl/certs, and that directory again as /usr/lib/ssl/certs.
type certReader struct {
	byFile map[fileID]*pemFile
}

// pemFile is a PEM file's CERTIFICATE blocks, and whether it holds others.
type pemFile struct {
	certs [][]byte
	other bool
}

func (r *certReader) file(path string) (*pemFile, bool) {
	id, known := fileIDOf(path)
	if f := r.byFile[id]; known && f != nil {
		return f, true
	}
	data, err := readFile(path)
	if err != nil {
		return nil, false
	}
	f := &pemFile{}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type == "CERTIFICATE" {
			f.certs = append(f.certs, block.Bytes)
		} else {
			f.other = true
		}
	}
	if known {
		if r.byFile == nil {
			r.byFile = map[fileID]*pemFile{}
		}
		r.byFile[id] = f
	}
	return f, true
}

func (s *certSet) add(der []byte) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[string(der)] {
		s.seen[string(der)] = true
		s.list = append(s.list, der)
	}
}

func (s *certSet) addAll(o *certSet) {
	for _, der := range o.list {
		s.add(der)
	}
}

// addFile adds the CERTIFICATE blocks of a PEM file (other blocks are
// skipped, as rustls skips them, unless strict). It reports false when the
// file cannot be read, or, strict, holds another kind of block.
func (s *certSet) addFile(path string, strict bool) bool {
	if s.read == nil {
		s.read = &certReader{}
	}
	f, ok := s.read.file(path)
	if !ok || (strict && f.other) {
		return false
	}
	for _, der := range f.certs {
		s.add(der)
	}
	return true
}

// addDir adds every regular file of a certificate directory (the hashed
// links and the named files alike: rustls reads them all).
func (s *certSet) addDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if isRegular(p) && !s.addFile(p, false) {
			return false
		}
	}
	return true
}

func allSame(sets []*certSet) bool {
	for _, s := range sets[min(1, len(sets)):] {
		if len(s.list) != len(sets[0].list) {
			return false
		}
		for _, der := range s.list {
			if !sets[0].seen[string(der)] {
				return false
			}
		}
	}
	return true
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
