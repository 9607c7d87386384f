package assets

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// fakeHost is the Core side of the transfers: one session, one allowed
// origin. Core's own adapter is tested with a whole Core in the root
// runtime package (session_assets_test.go).
type fakeHost struct {
	origin string
	dir    Dir
	ended  atomic.Bool
}

func (h *fakeHost) OriginAllowed(r *http.Request) (string, bool) {
	o := r.Header.Get("Origin")
	return o, o == "" || o == h.origin
}

func (h *fakeHost) Session(id string) (Session, error) {
	if id != "s1" {
		return nil, wire.Errorf(wire.CodeThreadNotFound, "no session %q", id)
	}
	return fakeSession{h}, nil
}

type fakeSession struct{ h *fakeHost }

func (s fakeSession) Assets() Dir                                     { return s.h.dir }
func (s fakeSession) Ended() bool                                     { return s.h.ended.Load() }
func (s fakeSession) Log() Logger                                     { return nopLog{} }
func (s fakeSession) ReserveAssetQuota(string, int64) (func(), error) { return func() {}, nil }

type nopLog struct{}

func (nopLog) Info(string, ...any) {}
func (nopLog) Warn(string, ...any) {}

// The transfers work with any Host: a ticket moves one file once, from
// its origin, and a session that has ended has no assets.
func TestTransfersThroughHost(t *testing.T) {
	dir, _ := newAssetDir(t)
	host := &fakeHost{origin: "http://page", dir: dir}
	x := NewTransfers(host, nopLog{}, time.Minute)
	mux := http.NewServeMux()
	x.Route(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	do := func(method, url, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+url, strings.NewReader(body))
		req.Header.Set("Origin", "http://page")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}

	up, err := x.UploadTicket("s1", "http://page", "/a.txt", 5)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := do(http.MethodPut, up.URL, "hello"); code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, body)
	}
	if code, body := do(http.MethodPut, up.URL, "hello"); code != http.StatusForbidden || !strings.Contains(body, string(wire.CodeAssetUploadUnauthorized)) {
		t.Fatalf("the upload ticket used again: %d %s", code, body)
	}
	read, err := x.ReadTicket(dir, "s1", "http://page", "/a.txt")
	if err != nil || read.Asset == nil || read.Asset.SizeBytes != 5 {
		t.Fatalf("read ticket: %+v %v", read, err)
	}
	if code, body := do(http.MethodGet, read.URL, ""); code != http.StatusOK || body != "hello" {
		t.Fatalf("read: %d %q", code, body)
	}
	if _, err := x.ReadTicket(dir, "s1", "http://page", "/nope"); wire.AsError(err).Code != wire.CodeAssetNotFound {
		t.Fatalf("read ticket for a missing file: %v", err)
	}

	host.ended.Store(true)
	read, _ = x.ReadTicket(dir, "s1", "http://page", "/a.txt")
	code, body := do(http.MethodGet, read.URL, "")
	var got wire.AgentResult
	json.Unmarshal([]byte(body), &got)
	if code != http.StatusGone || got.Error == nil || got.Error.Code != wire.CodeSessionEnded {
		t.Fatalf("read from an ended session: %d %s", code, body)
	}
}

func TestCheckUpload(t *testing.T) {
	size := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		path string
		size *int64
		want wire.Code
	}{
		{"/a.txt", size(0), ""},
		{"/a.txt", size(MaxBytes), ""},
		{"/a.txt", nil, wire.CodeInvalidInput},
		{"/a.txt", size(-1), wire.CodeInvalidInput},
		{"a.txt", size(1), wire.CodeAssetPathInvalid},
		{"/a.txt", size(MaxBytes + 1), wire.CodeAssetTooLarge},
	} {
		if got := codeOf(CheckUpload(c.path, c.size)); got != c.want {
			t.Errorf("CheckUpload(%q, %v) = %s, want %q", c.path, c.size, got, c.want)
		}
	}
}
