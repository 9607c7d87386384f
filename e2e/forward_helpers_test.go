package e2e

// Real port forwards for the remote tests (remote_*_test.go): Debian's
// OpenSSH server on a loopback port with `ssh -L` in front of Core, and
// Debian's nginx as an HTTPS reverse proxy with a name of its own,
// standing in for an editor's or Codespaces' forward. Everything listens
// on 127.0.0.1.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// needTool fails the test when a program it drives is not installed.
func needTool(t *testing.T, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is needed (Debian's %s; scripts/test.sh installs it): %v", path, pkg, err)
	}
}

// sshd is a real OpenSSH server on 127.0.0.1 that admits one key.
type sshd struct {
	port int
	key  string // the client's private key
	user string
}

func startSSHD(t *testing.T) *sshd {
	t.Helper()
	needTool(t, "/usr/sbin/sshd", "openssh-server")
	needTool(t, "/usr/bin/ssh", "openssh-client")
	if os.Getuid() != 0 {
		t.Fatalf("sshd needs root for its privilege separation; run the remote tests as root (CI does)")
	}
	dir := t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "host_key"))
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "client_key"))
	pub, err := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	port := freePort(t)
	config := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding local
GatewayPorts no
X11Forwarding no
LogLevel VERBOSE
`, port, filepath.Join(dir, "host_key"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"))
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(config), 0o600)
	// sshd forks a process per connection: the group goes together.
	startGroup(t, "sshd", exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(dir, "sshd_config")), nil)
	awaitListening(t, port, "sshd")
	return &sshd{port: port, key: filepath.Join(dir, "client_key"), user: "root"}
}

// forward is one running `ssh -N -L`.
type forward struct {
	cmd  *exec.Cmd
	logs *testenv.SyncBuffer
}

// forward runs `ssh -N -L 127.0.0.1:local:127.0.0.1:remote` through s, as a
// user on a laptop forwards Core's port from a dev box, and waits until the
// local port answers.
func (s *sshd) forward(t *testing.T, local, remote int) *forward {
	t.Helper()
	logs := &testenv.SyncBuffer{}
	cmd := exec.Command("/usr/bin/ssh", "-N", "-p", fmt.Sprint(s.port), "-i", s.key,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
		"-o", "ExitOnForwardFailure=yes", "-o", "ServerAliveInterval=5",
		"-L", fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", local, remote), s.user+"@127.0.0.1")
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &forward{cmd: cmd, logs: logs}
	t.Cleanup(f.cut)
	awaitListening(t, local, "ssh -L")
	return f
}

// cut ends the forward, as a dropped connection or a closed laptop lid
// does: every connection through it breaks.
func (f *forward) cut() {
	if f.cmd.ProcessState == nil {
		f.cmd.Process.Kill()
		f.cmd.Wait()
	}
}

// nginx is Debian's nginx as a TLS-terminating reverse proxy.
type nginx struct {
	port   int
	spki   string // base64 SHA-256 of the certificate's public key, for Chromium
	caPool *x509.CertPool
}

// startNginx proxies https://<name>:<port> for each name in upstreams to
// its http://127.0.0.1:<upstream port>, WebSockets included, with a
// self-signed certificate for every name, the way an editor's forward
// fronts Core with a name of its own; a request for any other name goes to
// fallback with its Host as sent. readTimeout is nginx's
// proxy_read_timeout: an idle connection is closed after it.
func startNginx(t *testing.T, port int, upstreams map[string]int, fallback int, readTimeout time.Duration) *nginx {
	t.Helper()
	needTool(t, "/usr/sbin/nginx", "nginx-light")
	dir := t.TempDir()
	var names []string
	for name := range upstreams {
		names = append(names, name)
	}
	certPEM, keyPEM, spki, pool := selfSigned(t, names)
	os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o600)
	os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600)
	var servers strings.Builder
	for name, up := range upstreams {
		fmt.Fprintf(&servers, `
  server {
    listen 127.0.0.1:%d ssl;
    server_name %s;
    ssl_certificate %s;
    ssl_certificate_key %s;
    location / {
      proxy_pass http://127.0.0.1:%d;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_read_timeout %ds;
      proxy_buffering off;
    }
  }`, port, name, filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), up, int(readTimeout.Seconds()))
	}
	// user root: the workers run as Core's own user (root in CI), as an
	// editor's forwarder runs as the user; a system nginx's www-data
	// workers would be another user, which the peer check refuses.
	config := fmt.Sprintf(`user root;
worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log info;
events { worker_connections 256; }
http {
  access_log %[1]s/access.log;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:%[2]d ssl default_server;
    server_name _;
    ssl_certificate %[1]s/cert.pem;
    ssl_certificate_key %[1]s/key.pem;
    location / { proxy_pass http://127.0.0.1:%[3]d; proxy_set_header Host $host; }
  }%[4]s
}
`, dir, port, fallback, servers.String())
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(config), 0o600)
	// The master and its worker go together: killing the master alone
	// leaves the worker serving, holding the output pipe.
	startGroup(t, "nginx", exec.Command("/usr/sbin/nginx", "-p", dir, "-c", filepath.Join(dir, "nginx.conf")), func() string {
		errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return "error.log:\n" + string(errLog)
	})
	awaitListening(t, port, "nginx")
	return &nginx{port: port, spki: spki, caPool: pool}
}

// selfSigned makes a certificate for names and the SPKI hash Chromium's
// --ignore-certificate-errors-spki-list takes to trust exactly it.
func selfSigned(t *testing.T, names []string) (certPEM, keyPEM []byte, spki string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
	cert, _ := x509.ParseCertificate(der)
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		base64.StdEncoding.EncodeToString(sum[:]), pool
}

func freePort(t *testing.T) int {
	t.Helper()
	_, port, _ := net.SplitHostPort(testenv.FreeAddr(t))
	var n int
	fmt.Sscan(port, &n)
	return n
}

func awaitListening(t *testing.T, port int, what string) {
	t.Helper()
	testenv.Await(t, 20*time.Second, what+" listening on 127.0.0.1:"+fmt.Sprint(port), func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// startGroup starts a server in a process group of its own and kills the
// whole group at cleanup, so no process it forked outlives the test. On
// failure its output is logged, and whatever more says.
func startGroup(t *testing.T, name string, cmd *exec.Cmd, more func() string) {
	t.Helper()
	var logs testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if t.Failed() {
			extra := ""
			if more != nil {
				extra = "\n" + more()
			}
			t.Logf("%s output:\n%s%s", name, logs.String(), extra)
		}
	})
}

// mapDialer dials one address whatever name is asked for, as Chromium's
// --host-resolver-rules maps the test's names to loopback.
type mapDialer struct{ to string }

func (d *mapDialer) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, d.to)
}
