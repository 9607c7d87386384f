package provider

import (
	"io"
	"strings"
	"testing"
	"time"
)

// A Read waits for open, then reads through; what was set before open is
// seen by the reader (the race detector checks the ordering).
func TestGatedReaderHoldsReadsUntilOpen(t *testing.T) {
	g := newGatedReader(strings.NewReader("hello"))
	var setBeforeOpen string
	got := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(g)
		got <- setBeforeOpen + ":" + string(data)
	}()
	select {
	case v := <-got:
		t.Fatalf("read %q before open", v)
	case <-time.After(20 * time.Millisecond):
	}
	setBeforeOpen = "logger set"
	g.open()
	if v := <-got; v != "logger set:hello" {
		t.Fatalf("read %q", v)
	}
}
