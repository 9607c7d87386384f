package runtime

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// holdProvider is an in-test provider whose turn stays open until the
// session ends, so tool calls can be made against it.
type holdProvider struct{}

func (holdProvider) Name() string { return "hold" }
func (holdProvider) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: "hold", Available: true}
}
func (holdProvider) RunTurn(ctx context.Context, _ *provider.Turn, _ func(provider.Event)) error {
	<-ctx.Done()
	return ctx.Err()
}

// newTestCore is an in-process Core behind an httptest server on loopback.
func newTestCore(tb testing.TB, providers ...provider.Provider) (*Core, *httptest.Server) {
	tb.Helper()
	core, err := NewCore(Options{
		StateDir:   tb.TempDir(),
		Providers:  provider.NewRegistry("", providers...),
		Logger:     log.New(io.Discard),
		Executable: "/bin/false",
	})
	if err != nil {
		tb.Fatal(err)
	}
	// With serve's listener and ConnContext, so the peer check runs once
	// per connection, as it is accepted, as it does in serve.
	srv := httptest.NewUnstartedServer(core.Handler(Assets{}))
	srv.Listener = core.peers.Listener(srv.Listener)
	srv.Config.ConnContext = peercred.ConnContext
	srv.Start()
	core.coreURL = srv.URL
	tb.Cleanup(func() {
		core.Shutdown(context.Background())
		srv.Close()
	})
	return core, srv
}

func wsURL(srv *httptest.Server) string { return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws" }
