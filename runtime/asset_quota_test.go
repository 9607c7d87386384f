package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Uploads past a session's disk quota, or past all sessions', are refused
// with ASSET_QUOTA_EXCEEDED before anything is written: what is there
// stays whole, and the next upload within the quota works.
func TestAssetQuotas(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Limits.AssetBytesPerSession = 100
		o.Limits.AssetBytesTotal = 150
	})
	p := h.page()
	info, s := h.session(p, true)
	self := map[string]string{"Origin": h.srv.URL}
	upload := func(sessionID, path string, data string) *wire.Error {
		t.Helper()
		raw, werr := p.Call(wire.MethodAssetUploadTicket, map[string]any{"sessionId": sessionID, "path": path, "sizeBytes": len(data)})
		if werr != nil {
			return werr
		}
		var tk wire.AssetTicket
		json.Unmarshal(raw, &tk)
		if code, body, err := transferReq(t, h, "PUT", tk.URL, strings.NewReader(data), int64(len(data)), self); err != nil {
			t.Fatalf("upload %s: %d %v %s", path, code, err, body)
		}
		return nil
	}
	if werr := upload(info.SessionID, "/a.bin", strings.Repeat("a", 80)); werr != nil {
		t.Fatal(werr)
	}
	werr := upload(info.SessionID, "/b.bin", strings.Repeat("b", 30))
	wantCode(t, werr, wire.CodeAssetQuotaExceeded)
	if !strings.Contains(werr.Message, "max-asset-bytes-per-session") {
		t.Errorf("the refusal does not name its flag: %s", werr.Message)
	}
	if data, _ := os.ReadFile(filepath.Join(s.WorkDir(), "assets", "a.bin")); len(data) != 80 {
		t.Fatalf("a.bin after the refusal: %d bytes", len(data))
	}
	if _, err := os.Stat(filepath.Join(s.WorkDir(), "assets", "b.bin")); !os.IsNotExist(err) {
		t.Fatalf("b.bin was written: %v", err)
	}
	if werr := upload(info.SessionID, "/c.bin", strings.Repeat("c", 20)); werr != nil {
		t.Fatalf("an upload within the quota: %v", werr)
	}
	// Another session: its own quota has room, all sessions' has not.
	other, _ := h.session(p, true)
	werr = upload(other.SessionID, "/d.bin", strings.Repeat("d", 60))
	wantCode(t, werr, wire.CodeAssetQuotaExceeded)
	if !strings.Contains(werr.Message, "max-asset-bytes-total") {
		t.Errorf("the refusal does not name the total's flag: %s", werr.Message)
	}
	if werr := upload(other.SessionID, "/e.bin", strings.Repeat("e", 50)); werr != nil {
		t.Fatalf("an upload within both quotas: %v", werr)
	}
}
