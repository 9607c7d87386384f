package commands

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// fakeCore serves h as Core would, behind its proof, and puts its key in
// the environment as Core does for an agent: tool-call then trusts it.
func fakeCore(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	id, err := coreauth.LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+wire.CoreProofPath, id)
	mux.Handle("/", h)
	t.Setenv(wire.EnvCoreKey, id.Key())
	return httptest.NewServer(mux)
}
