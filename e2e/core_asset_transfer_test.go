package e2e

// Asset transfers from a client that does not play by the SDK's rules: the
// real binary, a Go WebSocket page asking for tickets, and raw HTTP (even
// raw TCP) presenting them. Every ticket rule and every refusal Core must
// make on its own, whatever the page's SDK checked first.

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const pageOrigin = "http://127.0.0.1:5173"

// assetPage is a page on pageOrigin with one script session.
type assetPage struct {
	t    testing.TB
	srv  *testenv.Server
	p    *wspage.Page
	sid  string
	orig string
}

func newAssetPage(t testing.TB, srv *testenv.Server, origin string) *assetPage {
	t.Helper()
	p := wspage.Dial(t, srv.WSURL, origin)
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &autoEnd})
	return &assetPage{t: t, srv: srv, p: p, sid: info.SessionID, orig: origin}
}

func (a *assetPage) assetsDir() string {
	return filepath.Join(runtime.WorkDir(a.srv.StateDir, a.sid), "work", "assets")
}

// agent runs one script turn (the script provider's file verbs) and returns its chat.
func (a *assetPage) agent(script string) string {
	a.t.Helper()
	turn := a.p.SendText(a.sid, script)
	if done := a.p.AwaitDone(turn, 30*time.Second); !done.OK {
		a.t.Fatalf("agent turn failed: %+v", done.Error)
	}
	return a.p.Chat(turn)
}

func (a *assetPage) ticket(method string, params map[string]any) (wire.AssetTicket, *wire.Error) {
	params["sessionId"] = a.sid
	raw, err := a.p.Call(method, params)
	var t wire.AssetTicket
	if err == nil {
		json.Unmarshal(raw, &t)
	}
	return t, err
}

func (a *assetPage) mustTicket(method string, params map[string]any) wire.AssetTicket {
	a.t.Helper()
	t, err := a.ticket(method, params)
	if err != nil {
		a.t.Fatalf("%s %v: %v", method, params, err)
	}
	return t
}

type transfer struct {
	status int
	header http.Header
	body   []byte
	err    *wire.Error
}

// do presents a ticket URL with origin (empty: no Origin header).
func (a *assetPage) do(method, url, origin string, body io.Reader, size int64) transfer {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.srv.URL+url, body)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if body != nil {
		req.ContentLength = size
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	out := transfer{status: resp.StatusCode, header: resp.Header, body: data}
	if resp.StatusCode != 200 {
		var r wire.AgentResult
		if json.Unmarshal(data, &r) != nil || r.Error == nil {
			a.t.Fatalf("%s %s: HTTP %d without a Pedelec error: %s", method, url, resp.StatusCode, data)
		}
		out.err = r.Error
	}
	return out
}

// download streams a read ticket's bytes into a SHA-256, never holding them.
func (a *assetPage) download(url string) (sum []byte, n int64) {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.srv.URL+url, nil)
	req.Header.Set("Origin", a.orig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		data, _ := io.ReadAll(resp.Body)
		a.t.Fatalf("GET %s: HTTP %d %s", url, resp.StatusCode, data)
	}
	h := sha256.New()
	n, err = io.Copy(h, resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return h.Sum(nil), n
}

func (a *assetPage) upload(path, content string) wire.Asset {
	a.t.Helper()
	tk := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": path, "sizeBytes": len(content)})
	r := a.do("PUT", tk.URL, a.orig, strings.NewReader(content), int64(len(content)))
	if r.err != nil {
		a.t.Fatalf("upload %s: %v", path, r.err)
	}
	var up wire.AssetUploaded
	json.Unmarshal(r.body, &up)
	return up.Asset
}

func codeOfTransfer(r transfer) wire.Code {
	if r.err == nil {
		return wire.Code(fmt.Sprintf("HTTP %d ok", r.status))
	}
	return r.err.Code
}

func TestAssetTransferRules(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	other := "http://127.0.0.1:5174"
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin, "--allow-origin", other})
	a := newAssetPage(t, srv, pageOrigin)

	t.Run("upload, list and read over HTTP, with CORS for the page's origin", func(t *testing.T) {
		got := a.upload("/inputs/data.csv", "a,b\n1,2\n")
		if got.Path != "/inputs/data.csv" || got.Name != "data.csv" || got.SizeBytes != 8 {
			t.Fatalf("uploaded %+v", got)
		}
		tk := a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/inputs/data.csv"})
		if tk.Asset == nil || tk.Asset.SizeBytes != 8 || !strings.HasPrefix(tk.MimeType, "text/csv") {
			t.Fatalf("read ticket %+v", tk)
		}
		r := a.do("GET", tk.URL, pageOrigin, nil, 0)
		if r.err != nil || string(r.body) != "a,b\n1,2\n" {
			t.Fatalf("read: %v %q", r.err, r.body)
		}
		if r.header.Get("Access-Control-Allow-Origin") != pageOrigin || r.header.Get(wire.HeaderAssetName) != "data.csv" ||
			!strings.Contains(r.header.Get("Access-Control-Expose-Headers"), wire.HeaderAssetModifiedAt) {
			t.Fatalf("headers %v", r.header)
		}
		// The preflight a browser sends before its PUT.
		req, _ := http.NewRequest("OPTIONS", srv.URL+wire.AssetUploadPath+a.sid+"/x", nil)
		req.Header.Set("Origin", pageOrigin)
		req.Header.Set("Access-Control-Request-Method", "PUT")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != pageOrigin || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "PUT") {
			t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
		}
	})

	t.Run("a ticket works once, for its session, from its origin", func(t *testing.T) {
		a.upload("/once.txt", "once")
		tk := a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/once.txt"})
		if r := a.do("GET", tk.URL, pageOrigin, nil, 0); r.err != nil {
			t.Fatal(r.err)
		}
		if r := a.do("GET", tk.URL, pageOrigin, nil, 0); codeOfTransfer(r) != wire.CodeAssetDownloadUnauthorized || r.status != 403 {
			t.Fatalf("reused read ticket: %s", codeOfTransfer(r))
		}
		up := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/u.txt", "sizeBytes": 1})
		a.do("PUT", up.URL, pageOrigin, strings.NewReader("u"), 1)
		if r := a.do("PUT", up.URL, pageOrigin, strings.NewReader("u"), 1); codeOfTransfer(r) != wire.CodeAssetUploadUnauthorized {
			t.Fatalf("reused upload ticket: %s", codeOfTransfer(r))
		}

		// Another session's page (same origin) presents this session's ticket
		// under its own session id.
		b := newAssetPage(t, srv, pageOrigin)
		tk = a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/once.txt"})
		swapped := strings.Replace(tk.URL, a.sid, b.sid, 1)
		if r := a.do("GET", swapped, pageOrigin, nil, 0); codeOfTransfer(r) != wire.CodeAssetDownloadUnauthorized || !strings.Contains(string(r.body), "other_session") {
			t.Fatalf("ticket for another session: %s %s", codeOfTransfer(r), r.body)
		}
		up = a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/u.txt", "sizeBytes": 1})
		if r := a.do("PUT", strings.Replace(up.URL, a.sid, b.sid, 1), pageOrigin, strings.NewReader("u"), 1); codeOfTransfer(r) != wire.CodeAssetUploadUnauthorized {
			t.Fatalf("upload ticket for another session: %s", codeOfTransfer(r))
		}

		// Another allowed origin, and no Origin at all (not a browser).
		for _, origin := range []string{other, ""} {
			tk = a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/once.txt"})
			if r := a.do("GET", tk.URL, origin, nil, 0); codeOfTransfer(r) != wire.CodeAssetDownloadUnauthorized || !strings.Contains(string(r.body), "other_origin") {
				t.Fatalf("ticket presented by origin %q: %s %s", origin, codeOfTransfer(r), r.body)
			}
			up = a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/u.txt", "sizeBytes": 1})
			if r := a.do("PUT", up.URL, origin, strings.NewReader("u"), 1); codeOfTransfer(r) != wire.CodeAssetUploadUnauthorized {
				t.Fatalf("upload ticket presented by origin %q: %s", origin, codeOfTransfer(r))
			}
		}
		// An origin Core does not allow is refused like its WebSocket, without CORS.
		tk = a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/once.txt"})
		r := a.do("GET", tk.URL, "http://evil.example", nil, 0)
		if codeOfTransfer(r) != wire.CodeOriginNotAllowed || r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("disallowed origin: %s %v", codeOfTransfer(r), r.header)
		}
		if r := a.do("GET", wire.AssetReadPath+a.sid+"/made-up", pageOrigin, nil, 0); codeOfTransfer(r) != wire.CodeAssetDownloadUnauthorized {
			t.Fatalf("made-up ticket: %s", codeOfTransfer(r))
		}
	})

	t.Run("paths are checked by Core whatever the page sent", func(t *testing.T) {
		a.agent("mkdir assets/dir\nwrite assets/dir/inner.txt inner")
		// Links out, planted as a real agent's shell could (the script
		// agent refuses to make them).
		for link, to := range map[string]string{"passwd": "/etc/passwd", "etc": "/etc"} {
			if err := os.Symlink(to, filepath.Join(a.assetsDir(), link)); err != nil {
				t.Fatal(err)
			}
		}
		// And a hard link to Core's token (issue 20: it was served).
		if err := os.Link(filepath.Join(a.srv.StateDir, "core-token"), filepath.Join(a.assetsDir(), "token")); err != nil {
			t.Fatal(err)
		}
		cases := map[string]wire.Code{
			"/../../../etc/passwd":           wire.CodeAssetPathInvalid,
			"/%2e%2e/%2e%2e/etc/passwd":      wire.CodeAssetPathInvalid,
			"/%2E%2E":                        wire.CodeAssetPathInvalid,
			"..":                             wire.CodeAssetPathInvalid,
			"/etc/../passwd":                 wire.CodeAssetPathInvalid,
			"etc/passwd":                     wire.CodeAssetPathInvalid,
			"//etc/passwd":                   wire.CodeAssetPathInvalid,
			"C:\\Windows\\win.ini":           wire.CodeAssetPathInvalid,
			"/passwd":                        wire.CodeAssetPathInvalid, // the agent's symlink to /etc/passwd
			"/token":                         wire.CodeAssetPathInvalid, // a hard link to core-token
			"/a\nb":                          wire.CodeAssetPathInvalid,
			"/evil\u202etxt.exe":             wire.CodeAssetPathInvalid,
			"/etc/passwd":                    wire.CodeAssetPathInvalid, // through the agent's symlinked directory
			"/etc/hostname":                  wire.CodeAssetPathInvalid,
			"/.pedelec-upload-1":             wire.CodeAssetPathInvalid,
			"/dir":                           wire.CodeAssetNotFile,
			"/dir/inner.txt/x":               wire.CodeAssetNotFile,
			"/missing.txt":                   wire.CodeAssetNotFound,
			"/missing/inner.txt":             wire.CodeAssetNotFound,
			a.assetsDir() + "/dir/inner.txt": wire.CodeAssetNotFound, // an absolute host path is just a name inside assets/
		}
		for p, want := range cases {
			if _, err := a.ticket(wire.MethodAssetReadTicket, map[string]any{"path": p}); err == nil || err.Code != want {
				t.Errorf("read %q: %v, want %s", p, err, want)
			}
		}
		for p, want := range map[string]wire.Code{"/../x": wire.CodeAssetPathInvalid, "/etc/evil": wire.CodeAssetPathInvalid, "/passwd": wire.CodeAssetPathInvalid, "/dir": wire.CodeAssetNotFile} {
			tk, err := a.ticket(wire.MethodAssetUploadTicket, map[string]any{"path": p, "sizeBytes": 1})
			if err == nil {
				// Tickets check the text; the file system is checked at the PUT.
				if r := a.do("PUT", tk.URL, pageOrigin, strings.NewReader("x"), 1); codeOfTransfer(r) != want {
					t.Errorf("upload %q: %s, want %s", p, codeOfTransfer(r), want)
				}
			} else if err.Code != want {
				t.Errorf("upload %q: %v, want %s", p, err, want)
			}
		}
		if data, _ := os.ReadFile("/etc/passwd"); len(data) > 0 {
			if fi, err := os.Lstat(filepath.Join(a.assetsDir(), "passwd")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the agent's symlink was replaced: %v", err)
			}
		}
		var list wire.ListAssetsResult
		json.Unmarshal(a.p.MustCall(wire.MethodListAssets, map[string]any{"sessionId": a.sid}), &list)
		for _, x := range list.Assets {
			if strings.Contains(x.Path, "passwd") || strings.HasPrefix(x.Path, "/etc") || x.Path == "/dir" || x.Path == "/token" {
				t.Errorf("listed %s", x.Path)
			}
		}
	})

	t.Run("a file replaced by a directory between the ticket and the read", func(t *testing.T) {
		a.upload("/swap.txt", "swap")
		tk := a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/swap.txt"})
		a.agent("rm assets/swap.txt\nmkdir assets/swap.txt")
		if r := a.do("GET", tk.URL, pageOrigin, nil, 0); codeOfTransfer(r) != wire.CodeAssetNotFile {
			t.Fatalf("read of a file turned directory: %s", codeOfTransfer(r))
		}
		tk = a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/late.txt", "sizeBytes": 1})
		a.agent("mkdir assets/late.txt")
		if r := a.do("PUT", tk.URL, pageOrigin, strings.NewReader("x"), 1); codeOfTransfer(r) != wire.CodeAssetNotFile {
			t.Fatalf("upload onto a directory made meanwhile: %s", codeOfTransfer(r))
		}
	})

	t.Run("sizes: over 100 MiB, mismatches, a cut connection", func(t *testing.T) {
		const limit = 100 << 20
		if _, err := a.ticket(wire.MethodAssetUploadTicket, map[string]any{"path": "/big.bin", "sizeBytes": limit + 1}); err == nil || err.Code != wire.CodeAssetTooLarge {
			t.Fatalf("100 MiB + 1 byte upload ticket: %v", err)
		}
		// Fewer and more bytes than the ticket's size, declared or chunked.
		for _, c := range []struct {
			body    string
			declare int64
		}{{"abc", 3}, {"abcdefgh", 8}, {"abcdefgh", -1}, {"abc", -1}} {
			tk := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/m.txt", "sizeBytes": 5})
			r := a.do("PUT", tk.URL, pageOrigin, strings.NewReader(c.body), c.declare)
			if codeOfTransfer(r) != wire.CodeAssetUploadSizeMismatch {
				t.Fatalf("%d bytes (declared %d) for a 5-byte ticket: %s", len(c.body), c.declare, codeOfTransfer(r))
			}
		}
		// The connection is cut before the declared bytes arrive.
		tk := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/m.txt", "sizeBytes": 10})
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Length: 10\r\n\r\nhalf!", tk.URL, srv.Addr, pageOrigin)
		conn.(*net.TCPConn).CloseWrite()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		conn.Close()
		if !strings.Contains(string(data), string(wire.CodeAssetUploadFailed)) {
			t.Fatalf("cut upload: HTTP %d %s", resp.StatusCode, data)
		}
		leftovers, _ := filepath.Glob(filepath.Join(a.assetsDir(), ".pedelec-*"))
		if _, err := os.Stat(filepath.Join(a.assetsDir(), "m.txt")); !os.IsNotExist(err) || len(leftovers) > 0 {
			t.Fatalf("failed uploads left files: %v %v", err, leftovers)
		}
		// A sparse file just over the read limit.
		big := filepath.Join(a.assetsDir(), "huge.bin")
		f, _ := os.Create(big)
		f.Truncate(limit + 1)
		f.Close()
		if _, err := a.ticket(wire.MethodAssetReadTicket, map[string]any{"path": "/huge.bin"}); err == nil || err.Code != wire.CodeAssetReadTooLarge {
			t.Fatalf("read of 100 MiB + 1 byte: %v", err)
		}
	})

	t.Run("one upload at a time per session", func(t *testing.T) {
		first := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/one.txt", "sizeBytes": 3})
		if _, err := a.ticket(wire.MethodAssetUploadTicket, map[string]any{"path": "/two.txt", "sizeBytes": 3}); err == nil || err.Code != wire.CodeAssetUploadBusy {
			t.Fatalf("second upload: %v", err)
		}
		// Another session uploads meanwhile.
		b := newAssetPage(t, srv, pageOrigin)
		b.upload("/b.txt", "b")
		// A PUT in progress holds the slot too: its body is still coming.
		pr, pw := io.Pipe()
		done := make(chan transfer, 1)
		go func() { done <- a.do("PUT", first.URL, pageOrigin, pr, 3) }()
		pw.Write([]byte("o"))
		testenv.Await(t, 10*time.Second, "the upload to start", func() bool {
			m, _ := filepath.Glob(filepath.Join(a.assetsDir(), ".pedelec-upload-*"))
			return len(m) == 1
		})
		if _, err := a.ticket(wire.MethodAssetUploadTicket, map[string]any{"path": "/two.txt", "sizeBytes": 3}); err == nil || err.Code != wire.CodeAssetUploadBusy {
			t.Fatalf("upload during a running PUT: %v", err)
		}
		pw.Write([]byte("ne"))
		pw.Close()
		if r := <-done; r.err != nil {
			t.Fatal(r.err)
		}
		a.upload("/two.txt", "two")
	})

	t.Run("an ending session refuses every asset request, and its assets go with it", func(t *testing.T) {
		a.upload("/last.txt", "last")
		read := a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/last.txt"})
		up := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/after.txt", "sizeBytes": 1})
		a.p.MustCall(wire.MethodEndSession, map[string]any{"sessionId": a.sid})
		for _, m := range []string{wire.MethodListAssets, wire.MethodAssetReadTicket, wire.MethodAssetUploadTicket} {
			if _, err := a.ticket(m, map[string]any{"path": "/last.txt", "sizeBytes": 1}); err == nil || err.Code != wire.CodeSessionEnded {
				t.Errorf("%s after end: %v", m, err)
			}
		}
		if r := a.do("GET", read.URL, pageOrigin, nil, 0); codeOfTransfer(r) != wire.CodeSessionEnded {
			t.Errorf("read ticket used after end: %s", codeOfTransfer(r))
		}
		if r := a.do("PUT", up.URL, pageOrigin, strings.NewReader("x"), 1); codeOfTransfer(r) != wire.CodeSessionEnded {
			t.Errorf("upload ticket used after end: %s", codeOfTransfer(r))
		}
		noSessionLeftovers(t, srv, a.sid)
	})
}

func TestAssetTicketsExpire(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin, "--asset-ticket-ttl", "300ms"})
	a := newAssetPage(t, srv, pageOrigin)
	a.upload("/x.txt", "x")
	read := a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/x.txt"})
	up := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/y.txt", "sizeBytes": 1})
	time.Sleep(time.Until(time.UnixMilli(max(read.ExpiresAt, up.ExpiresAt))) + 100*time.Millisecond)
	if r := a.do("GET", read.URL, pageOrigin, nil, 0); codeOfTransfer(r) != wire.CodeAssetDownloadTicketExpired {
		t.Errorf("expired read ticket: %s", codeOfTransfer(r))
	}
	if r := a.do("PUT", up.URL, pageOrigin, strings.NewReader("y"), 1); codeOfTransfer(r) != wire.CodeAssetUploadTicketExpired {
		t.Errorf("expired upload ticket: %s", codeOfTransfer(r))
	}
	// An upload ticket that expired unused frees the session's upload slot.
	a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/z.txt", "sizeBytes": 1})
	time.Sleep(500 * time.Millisecond)
	a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/z.txt", "sizeBytes": 1})
}
