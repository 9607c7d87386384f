package runtime

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// transferReq sends one asset transfer to the harness's Core with the
// given headers and returns the status and Core's error, if any.
func transferReq(t *testing.T, h *harness, method, url string, body io.Reader, size int64, headers map[string]string) (int, []byte, *wire.Error) {
	t.Helper()
	req, _ := http.NewRequest(method, h.srv.URL+url, body)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if body != nil {
		req.ContentLength = size
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 {
		return 200, data, nil
	}
	var r wire.AgentResult
	json.Unmarshal(data, &r)
	return resp.StatusCode, data, r.Error
}

// The demo (Core's own origin) uploads with Origin and reads with only
// Sec-Fetch-Site: same-origin, as Chromium sends a same-origin GET.
func TestAssetTransferInProcess(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.AllowOrigins = []string{"http://127.0.0.1:1"} })
	p := h.page()
	info, s := h.session(p, true)
	self := map[string]string{"Origin": h.srv.URL}

	var tk wire.AssetTicket
	json.Unmarshal(p.MustCall(wire.MethodAssetUploadTicket, map[string]any{"sessionId": info.SessionID, "path": "/in/a.txt", "sizeBytes": 5}), &tk)
	if code, body, err := transferReq(t, h, "PUT", tk.URL, strings.NewReader("hello"), 5, self); err != nil {
		t.Fatalf("upload: %d %v", code, err)
	} else if !strings.Contains(string(body), `"path":"/in/a.txt"`) {
		t.Fatalf("upload answered %s", body)
	}
	if data, _ := os.ReadFile(filepath.Join(s.WorkDir(), "assets", "in", "a.txt")); string(data) != "hello" {
		t.Fatalf("on disk: %q", data)
	}

	var list wire.ListAssetsResult
	json.Unmarshal(p.MustCall(wire.MethodListAssets, map[string]any{"sessionId": info.SessionID}), &list)
	if len(list.Assets) != 1 || list.Assets[0].Path != "/in/a.txt" || list.Assets[0].SizeBytes != 5 {
		t.Fatalf("list %+v", list)
	}

	json.Unmarshal(p.MustCall(wire.MethodAssetReadTicket, map[string]any{"sessionId": info.SessionID, "path": "/in/a.txt"}), &tk)
	code, body, err := transferReq(t, h, "GET", tk.URL, nil, 0, map[string]string{"Sec-Fetch-Site": "same-origin"})
	if err != nil || string(body) != "hello" {
		t.Fatalf("same-origin read: %d %v %q", code, err, body)
	}
	// Without Origin or Sec-Fetch-Site the request is not the page's.
	json.Unmarshal(p.MustCall(wire.MethodAssetReadTicket, map[string]any{"sessionId": info.SessionID, "path": "/in/a.txt"}), &tk)
	if _, _, err := transferReq(t, h, "GET", tk.URL, nil, 0, nil); err == nil || err.Code != wire.CodeAssetDownloadUnauthorized {
		t.Fatalf("read without an origin: %v", err)
	}
	// Another session's owner cannot even ask for a ticket.
	other := h.otherOriginPage("http://127.0.0.1:1")
	_, werr := other.Call(wire.MethodAssetReadTicket, map[string]any{"sessionId": info.SessionID, "path": "/in/a.txt"})
	wantCode(t, werr, wire.CodeThreadAccessDenied)
}

// A session that ends while its upload streams stops the upload at once,
// answers SESSION_ENDED and leaves nothing behind.
func TestAssetUploadStopsWhenSessionEnds(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, false)
	var tk wire.AssetTicket
	json.Unmarshal(p.MustCall(wire.MethodAssetUploadTicket, map[string]any{"sessionId": info.SessionID, "path": "/big.bin", "sizeBytes": 1 << 20}), &tk)
	pr, pw := io.Pipe()
	done := make(chan *wire.Error, 1)
	go func() {
		_, _, err := transferReq(t, h, "PUT", tk.URL, pr, 1<<20, map[string]string{"Origin": h.srv.URL})
		done <- err
	}()
	pw.Write(make([]byte, 1000))
	assets := filepath.Join(s.WorkDir(), "assets")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(assets, ".pedelec-upload-*")); len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the upload never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.MustCall(wire.MethodEndSession, map[string]any{"sessionId": info.SessionID})
	go func() {
		for {
			if _, err := pw.Write(make([]byte, 1000)); err != nil {
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err == nil || err.Code != wire.CodeSessionEnded {
			t.Fatalf("upload during end: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the upload did not stop when the session ended")
	}
	pw.Close()
	if m, _ := filepath.Glob(filepath.Join(assets, "*")); len(m) > 0 {
		t.Fatalf("left behind: %v", m)
	}
}

// Issue 20: a PUT refused for its Origin kept the session's upload slot
// busy for the ticket's lifetime. A refused upload now frees it (and spends
// the ticket: whoever presented it from elsewhere had it leaked).
func TestAssetUploadRefusedForOriginFreesSlot(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	var tk wire.AssetTicket
	json.Unmarshal(p.MustCall(wire.MethodAssetUploadTicket, map[string]any{"sessionId": info.SessionID, "path": "/a.txt", "sizeBytes": 1}), &tk)
	if code, _, err := transferReq(t, h, "PUT", tk.URL, strings.NewReader("x"), 1, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden || err == nil || err.Code != wire.CodeOriginNotAllowed {
		t.Fatalf("upload from a disallowed origin: %d %v", code, err)
	}
	if _, werr := p.Call(wire.MethodAssetUploadTicket, map[string]any{"sessionId": info.SessionID, "path": "/b.txt", "sizeBytes": 1}); werr != nil {
		t.Fatalf("the next upload ticket: %v", werr)
	}
	if _, _, err := transferReq(t, h, "PUT", tk.URL, strings.NewReader("x"), 1, map[string]string{"Origin": h.srv.URL}); err == nil || err.Code != wire.CodeAssetUploadUnauthorized {
		t.Fatalf("the refused ticket presented again: %v", err)
	}
}

// A read asset can never run as a document of Core's origin (issue 22:
// the console and the approvals API live there): every read is
// sandboxed and nosniff, and HTML, SVG and XML come as attachments. The
// bytes are unchanged for the SDK's fetch.
func TestAssetReadIsInert(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	files := map[string]struct {
		body       string
		attachment bool
	}{
		"page.html": {`<script>fetch("/console/api/decide")</script>`, true},
		"pic.svg":   {`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`, true},
		"feed.xml":  {`<?xml version="1.0"?><a/>`, true},
		"x.xhtml":   {`<html xmlns="http://www.w3.org/1999/xhtml"/>`, true},
		"data.json": {`{"a":1}`, false},
		"notes.txt": {`<script>alert(1)</script>`, false},
		"photo.png": {"\x89PNG\r\n", false},
		"noext":     {`<html><script>alert(1)</script>`, false},
	}
	dir := filepath.Join(s.WorkDir(), "assets")
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range files {
		var tk wire.AssetTicket
		json.Unmarshal(p.MustCall(wire.MethodAssetReadTicket, map[string]any{"sessionId": info.SessionID, "path": "/" + name}), &tk)
		req, _ := http.NewRequest("GET", h.srv.URL+tk.URL, nil)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		hd := resp.Header
		if resp.StatusCode != 200 || string(body) != f.body {
			t.Errorf("%s: %d %q", name, resp.StatusCode, body)
		}
		if csp := hd.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") || hd.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q, nosniff %q", name, csp, hd.Get("X-Content-Type-Options"))
		}
		cd := hd.Get("Content-Disposition")
		if f.attachment != strings.HasPrefix(cd, "attachment") {
			t.Errorf("%s (%s): Content-Disposition %q", name, hd.Get("Content-Type"), cd)
		}
		if f.attachment && !strings.Contains(cd, name) {
			t.Errorf("%s: the download is not named: %q", name, cd)
		}
	}
}
