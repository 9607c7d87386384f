package assets

import (
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func tokenOf(t wire.AssetTicket) string { return t.URL[strings.LastIndex(t.URL, "/")+1:] }

func TestAssetTicketRules(t *testing.T) {
	var b ticketBook
	read := b.issue(&ticket{sessionID: "s1", origin: "http://a", path: "/x"}, time.Minute)
	if !strings.HasPrefix(read.URL, wire.AssetReadPath+"s1/") || read.Method != "GET" {
		t.Fatalf("read ticket %+v", read)
	}
	for _, c := range []struct {
		upload          bool
		session, origin string
		code            wire.Code
		reason          string
	}{
		{true, "s1", "http://a", wire.CodeAssetUploadUnauthorized, "wrong_kind"},
		{false, "s1", "http://a", wire.CodeAssetDownloadUnauthorized, "used"},
	} {
		_, e := b.redeem(c.upload, c.session, tokenOf(read), c.origin)
		err := wire.AsError(e)
		if err == nil || err.Code != c.code || err.Details.(map[string]any)["reason"] != c.reason {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	for _, c := range []struct{ session, origin, reason string }{{"s2", "http://a", "other_session"}, {"s1", "http://b", "other_origin"}, {"s1", "", "other_origin"}} {
		tk := b.issue(&ticket{sessionID: "s1", origin: "http://a", path: "/x"}, time.Minute)
		if _, e := b.redeem(false, c.session, tokenOf(tk), c.origin); wire.AsError(e) == nil || wire.AsError(e).Details.(map[string]any)["reason"] != c.reason {
			t.Fatalf("%+v: %v", c, e)
		}
	}
	tk := b.issue(&ticket{sessionID: "s1", origin: "http://a", path: "/x"}, -time.Second)
	if _, err := b.redeem(false, "s1", tokenOf(tk), "http://a"); wire.AsError(err) == nil || wire.AsError(err).Code != wire.CodeAssetDownloadTicketExpired {
		t.Fatalf("expired: %v", err)
	}
	if _, err := b.redeem(false, "s1", "nope", "http://a"); wire.AsError(err) == nil || wire.AsError(err).Details.(map[string]any)["reason"] != "unknown" {
		t.Fatalf("unknown: %v", err)
	}

	// The upload slot: held from the ticket to uploadDone; freed by a refused
	// presentation or by expiry; never freed by another ticket's end.
	up, werr := b.issueUpload("s1", "http://a", "/u", 3, time.Minute)
	if werr != nil {
		t.Fatal(werr)
	}
	if _, err := b.issueUpload("s1", "http://a", "/v", 3, time.Minute); wire.AsError(err) == nil || wire.AsError(err).Code != wire.CodeAssetUploadBusy {
		t.Fatalf("second upload: %v", err)
	}
	if _, err := b.issueUpload("s2", "http://a", "/v", 3, time.Minute); err != nil {
		t.Fatalf("another session's upload: %v", err)
	}
	if got, err := b.redeem(true, "s1", tokenOf(up), "http://a"); err != nil || got.size != 3 || got.path != "/u" {
		t.Fatalf("redeem upload: %+v %v", got, err)
	}
	b.uploadDone("s1", "another-token")
	if _, err := b.issueUpload("s1", "http://a", "/v", 3, time.Minute); err == nil {
		t.Fatal("another token freed the running upload's slot")
	}
	b.uploadDone("s1", tokenOf(up))
	up, _ = b.issueUpload("s1", "http://a", "/v", 3, time.Minute)
	b.redeem(true, "s1", tokenOf(up), "http://evil")
	if _, err := b.issueUpload("s1", "http://a", "/w", 3, -time.Second); err != nil {
		t.Fatalf("slot after a refused presentation: %v", err)
	}
	if _, err := b.issueUpload("s1", "http://a", "/w", 3, time.Minute); err != nil {
		t.Fatalf("slot after an unused ticket expired: %v", err)
	}
}
