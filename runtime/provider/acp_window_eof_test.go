package provider

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// An agent's last message before its output ends may lack the newline
// (the library reads it all the same, as the last line). Core's mark
// after it must not be glued onto it: the library would read the two as
// one line it cannot parse and drop both, the agent's message with it
// (and log the mark's key in the raw line).
func TestACPLastMessageWithoutNewlineIsNotLostToAMark(t *testing.T) {
	n := acpMarkEvery // the last one is followed by a mark
	gone := make(chan struct{})
	defer close(gone)
	b := newACPBound("unit", func() {}, gone)
	agentR, agentW := io.Pipe()
	go func() {
		for i := range n {
			fmt.Fprintf(agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%d "}}}}`, i)
			if i < n-1 {
				io.WriteString(agentW, "\n")
			}
		}
		agentW.Close()
	}()
	var mu sync.Mutex
	got := 0
	c := newACPClient("unit", "", nil)
	c.begin(&acpTurn{emit: func(ev Event) {
		if ev.ChatDelta != "" {
			mu.Lock()
			got++
			mu.Unlock()
		}
	}})
	conn := acp.NewClientSideConnection(b.client(c), io.Discard, b.reader(agentR))
	select {
	case <-conn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not end")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		g := got
		mu.Unlock()
		if g == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the agent's %d messages arrived: the last, without its newline, was lost", g, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
