package e2e

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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// TestCodexACPReadsNoCertificateDirectoryPerTurn: Codex builds an HTTP
// client for every model request and MCP tool call, and each build read
// every file of the certificate directory (SSL_CERT_DIR, or the system's
// /etc/ssl/certs): most of its CPU in a warm turn. Pedelec gives Codex one
// bundle of the same certificates and an empty directory. Observed from
// outside with the real codex-acp: during a warm turn with a tool call,
// nothing opens a file of the directory Core was given, and the agent runs
// with a bundle holding exactly the certificates of that file and
// directory (the same roots), the directory it reads being empty.
func TestCodexACPReadsNoCertificateDirectoryPerTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Core and codex-acp")
	}
	certs := t.TempDir()
	bundle, dir := filepath.Join(certs, "bundle.pem"), filepath.Join(certs, "dir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	a, b, c := testCACert(t, "a"), testCACert(t, "b"), testCACert(t, "c")
	writePEM(t, bundle, a, b)
	writePEM(t, filepath.Join(dir, "b.pem"), b) // also in the bundle: once in the union
	writePEM(t, filepath.Join(dir, "c.pem"), c)

	cli := codexACPCLI
	ms := cli.newServer(t)
	config := cliConfig(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	srv := testenv.Serve(t, []string{"--config", config}, "SSL_CERT_FILE="+bundle, "SSL_CERT_DIR="+dir)
	counter := 0
	page := acpCounterPage(t, srv, &counter)
	sid := cliSession(t, page, cli)

	ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 1}), modelserver.Say("Done."))
	if _, done := cliTurn(t, page, sid, "Add one."); !done.OK {
		t.Fatalf("turn 1: %+v", done.Error)
	}

	opens := watchOpens(t, dir)
	ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 1}), modelserver.Say("Done again."))
	if _, done := cliTurn(t, page, sid, "Add one again."); !done.OK {
		t.Fatalf("turn 2: %+v", done.Error)
	}
	if counter != 2 {
		t.Fatalf("counter = %d, want 2: the tool calls did not reach the page", counter)
	}
	if n := opens(); n > 0 {
		t.Errorf("files of SSL_CERT_DIR were opened %d times during a warm turn (two model requests and a tool call)", n)
	}

	env := agentEnv(t, sid)
	if got := env["SSL_CERT_DIR"]; got == dir || got == "" {
		t.Fatalf("the agent's SSL_CERT_DIR = %q, want Pedelec's empty directory", got)
	} else if entries, err := os.ReadDir(got); err != nil || len(entries) > 0 {
		t.Errorf("the agent's SSL_CERT_DIR %s: %d entries, %v; want an empty directory", got, len(entries), err)
	}
	got := readPEM(t, env["SSL_CERT_FILE"])
	want := [][]byte{a, b, c}
	if len(got) != len(want) {
		t.Fatalf("the agent's SSL_CERT_FILE %s holds %d certificates, want %d (the bundle and the directory, once each)", env["SSL_CERT_FILE"], len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			t.Errorf("certificate %d of the agent's bundle differs from the one Core was given", i)
		}
	}
}

// testCACert is a fresh self-signed CA certificate, DER.
func testCACert(t *testing.T, name string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "pedelec test " + name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func writePEM(t *testing.T, path string, ders ...[]byte) {
	t.Helper()
	var b strings.Builder
	for _, der := range ders {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readPEM(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		var block *pem.Block
		if block, data = pem.Decode(data); block == nil {
			return out
		}
		out = append(out, block.Bytes)
	}
}

// agentEnv is the environment of the session's agent process (the one
// whose command is codex-acp's native binary).
func agentEnv(t *testing.T, sid string) map[string]string {
	t.Helper()
	for _, pid := range sessionPIDs(sid) {
		exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
		if filepath.Base(exe) != "codex-acp" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, kv := range strings.Split(string(data), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		return env
	}
	t.Fatalf("no codex-acp process for session %s among %v", sid, sessionPIDs(sid))
	return nil
}

// watchOpens counts, from now, the opens of dir and of the files in it
// (inotify: whoever opens them); the returned function reads the count so
// far.
func watchOpens(t *testing.T, dir string) func() int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	n := 0
	return func() int {
		buf := make([]byte, 64*1024)
		for {
			k, err := syscall.Read(fd, buf)
			if k <= 0 || err != nil {
				return n
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= k; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Mask&syscall.IN_OPEN != 0 {
					n++
				}
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}
