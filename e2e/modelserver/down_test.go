package modelserver

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A down model server refuses connections, and its port is not handed to
// anyone else while the test runs.
func TestDownURLRefusesAndKeepsItsPort(t *testing.T) {
	down := DownURL(t)
	client := &http.Client{Timeout: 2 * time.Second}
	if _, err := client.Get(down + "/v1/models"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("GET on the down server: %v, want connection refused", err)
	}
	if l, err := net.Listen("tcp", strings.TrimPrefix(down, "http://")); err == nil {
		l.Close()
		t.Fatal("another server could listen on the down server's port")
	}
}
