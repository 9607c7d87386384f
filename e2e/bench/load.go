package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// caller is one agent connection to Core's agent endpoint, kept alive
// between calls: what an MCP bridge or in-process caller sees, without a
// process start per call.
type caller struct {
	http *http.Client
	url  string
	auth string
	body []byte
}

func newCaller(a agentEnv, args json.RawMessage) *caller {
	body, _ := json.Marshal(wire.AgentToolCallRequest{ThreadID: a.threadID, Tool: "bench_echo", Args: args})
	tr := &http.Transport{Proxy: nil, MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableCompression: true}
	return &caller{http: &http.Client{Transport: tr}, url: a.coreURL + wire.AgentToolCallPath, auth: "Bearer " + a.secret, body: body}
}

func (c *caller) call() error {
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(c.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", c.auth)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(data, []byte(`{"ok":true`)) {
		return fmt.Errorf("call failed: %.300s", data)
	}
	return nil
}

func (c *caller) close() { c.http.CloseIdleConnections() }

// argsOfSize is bench_echo's arguments padded to about n bytes.
func argsOfSize(n int) json.RawMessage {
	pad := max(0, n-len(`{"n":1,"pad":""}`))
	return json.RawMessage(`{"n":1,"pad":"` + strings.Repeat("x", pad) + `"}`)
}

// sequential makes n calls one after another on one connection and
// returns each call's latency and the whole run's duration.
func sequential(a agentEnv, args json.RawMessage, n int) ([]time.Duration, time.Duration, error) {
	c := newCaller(a, args)
	defer c.close()
	for range 20 { // warm: connection, page JIT
		if err := c.call(); err != nil {
			return nil, 0, err
		}
	}
	lat := make([]time.Duration, 0, n)
	start := time.Now()
	for range n {
		t := time.Now()
		if err := c.call(); err != nil {
			return nil, 0, err
		}
		lat = append(lat, time.Since(t))
	}
	return lat, time.Since(start), nil
}

// concurrent runs k callers, each on its own connection, for d, and
// returns the completed calls per second.
func concurrent(a agentEnv, args json.RawMessage, k int, d time.Duration) (float64, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
		first error
	)
	stop := time.Now().Add(d)
	start := time.Now()
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCaller(a, args)
			defer c.close()
			n := 0
			for time.Now().Before(stop) {
				if err := c.call(); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				n++
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, first
	}
	return float64(total) / time.Since(start).Seconds(), nil
}
