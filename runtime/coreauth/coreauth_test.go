package coreauth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The key is made once and kept: a restarted Core proves the same key.
func TestIdentityKeptAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOrCreate(dir)
	if err != nil || b.Key() != a.Key() {
		t.Fatalf("second start: %v, key %s, want %s", err, b.Key(), a.Key())
	}
	if info, err := os.Stat(filepath.Join(dir, wire.CoreKeyFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("core-key: %v %v", info.Mode(), err)
	}
	if pub, err := PublicKey(dir); err != nil || pub != a.Key() {
		t.Fatalf("PublicKey = %s, %v", pub, err)
	}
	os.WriteFile(filepath.Join(dir, wire.CoreKeyFile), []byte("garbage"), 0o600)
	if _, err := LoadOrCreate(dir); err == nil || !strings.Contains(err.Error(), "move the file away") {
		t.Fatalf("a corrupt key: %v", err)
	}
}

func TestProofVerifies(t *testing.T) {
	id, _ := LoadOrCreate(t.TempDir())
	other, _ := LoadOrCreate(t.TempDir())
	nonce := NewNonce()
	p, err := id.Prove(nonce)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(id.Key(), nonce, p); err != nil {
		t.Fatalf("a good proof: %v", err)
	}
	if err := Verify(id.Key(), NewNonce(), p); err == nil {
		t.Fatal("a replayed proof verified for another nonce")
	}
	if err := Verify(other.Key(), nonce, p); !errors.Is(err, errOtherKey) {
		t.Fatalf("another key: %v", err)
	}
	forged := wire.CoreProof{Key: id.Key(), Signature: mustProve(t, other, nonce).Signature}
	if err := Verify(id.Key(), nonce, forged); err == nil {
		t.Fatal("another key's signature under this key verified")
	}
	for _, bad := range []string{"", "short", strings.Repeat("a", wire.MaxProofNonce+1), "aaaaaaaaaaaaaaaaaaaa/"} {
		if _, err := id.Prove(bad); err == nil {
			t.Errorf("nonce %q signed", bad)
		}
	}
}

func mustProve(t *testing.T, id *Identity, nonce string) wire.CoreProof {
	p, err := id.Prove(nonce)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The Dialer hands over a connection only after the proof, and the
// request that follows on it reaches the server; anything that cannot
// prove the key gets CORE_NOT_AUTHENTIC and never sees the request.
func TestDialerProvesBeforeTheRequest(t *testing.T) {
	dir := t.TempDir()
	id, _ := LoadOrCreate(dir)
	impostor, _ := LoadOrCreate(t.TempDir())
	var secrets []string
	mux := func(id *Identity) http.Handler {
		m := http.NewServeMux()
		m.Handle("GET "+wire.CoreProofPath, id)
		m.HandleFunc("POST /secret", func(w http.ResponseWriter, r *http.Request) {
			secrets = append(secrets, r.Header.Get("Authorization"))
			io.WriteString(w, "ok")
		})
		return m
	}
	cases := map[string]struct {
		h    http.Handler
		want string
	}{
		"the real Core":  {mux(id), ""},
		"another Core":   {mux(impostor), "another key"},
		"a plain server": {http.NotFoundHandler(), "HTTP 404"},
		"a replayer": {http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == wire.CoreProofPath {
				wire.WriteJSON(w, 200, mustProve(t, id, NewNonce()))
			}
		}), "does not verify"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			secrets = nil
			srv := httptest.NewServer(c.h)
			defer srv.Close()
			d := &Dialer{Expect: FromStateDir(dir), CoreURL: srv.URL}
			client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
			req, _ := http.NewRequest("POST", srv.URL+"/secret", strings.NewReader("{}"))
			req.Header.Set("Authorization", "Bearer s3cret")
			resp, err := client.Do(req)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(body) != "ok" || len(secrets) != 1 {
					t.Fatalf("the request after the proof: %q, %v", body, secrets)
				}
				return
			}
			var werr *wire.Error
			if !errors.As(err, &werr) || werr.Code != wire.CodeCoreNotAuthentic || !strings.Contains(werr.Message, c.want) {
				t.Fatalf("err = %v, want CORE_NOT_AUTHENTIC naming %q", err, c.want)
			}
			if len(secrets) != 0 {
				t.Fatalf("the impostor got the request: %v", secrets)
			}
		})
	}
}

// Something that is not HTTP at all, or that never answers, is named.
func TestDialerRefusesSilentAndNonHTTP(t *testing.T) {
	dir := t.TempDir()
	LoadOrCreate(dir)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				n, _ := c.Read(buf)
				got <- string(buf[:n])
				c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
				c.Close()
			}()
		}
	}()
	d := &Dialer{Expect: FromStateDir(dir), CoreURL: "http://" + l.Addr().String()}
	_, err := d.DialContext(context.Background(), "tcp", l.Addr().String())
	var werr *wire.Error
	if !errors.As(err, &werr) || werr.Code != wire.CodeCoreNotAuthentic || !strings.Contains(werr.Message, "HTTP") {
		t.Fatalf("err = %v", err)
	}
	if first := <-got; !strings.HasPrefix(first, "GET "+wire.CoreProofPath+"?nonce=") || strings.Contains(first, "Authorization") {
		t.Fatalf("the first bytes sent: %q", first)
	}
	// No key to check against: refused, naming the state directory.
	d = &Dialer{Expect: FromStateDir(t.TempDir()), CoreURL: "x"}
	if _, err := d.DialContext(context.Background(), "tcp", l.Addr().String()); !errors.As(err, &werr) || !strings.Contains(werr.Message, "ever run") {
		t.Fatalf("no key: %v", err)
	}
}

// What the proof adds to each connection a client makes: a round trip on
// loopback, one P-256 signature in Core and one verification in the client.
func BenchmarkDialWithProof(b *testing.B) {
	dir := b.TempDir()
	id, _ := LoadOrCreate(dir)
	mux := http.NewServeMux()
	mux.Handle("GET "+wire.CoreProofPath, id)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	d := &Dialer{Expect: FromStateDir(dir), CoreURL: srv.URL}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
		}
	})
	b.Run("proven", func(b *testing.B) {
		for b.Loop() {
			c, err := d.DialContext(context.Background(), "tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
		}
	})
}
