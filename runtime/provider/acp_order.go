package provider

import (
	"context"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// The ACP library (coder/acp-go-sdk) runs each request an agent sends at
// once, on a goroutine of its own, and its notifications in order on
// another: a request can be handled before notifications the agent sent
// ahead of it. A permission request is decided by the tool_call the agent
// announced just before it (Copilot's request carries only the bare tool
// name, its tool_call the server's prefix), so it first waits until the
// session/update notifications read before it are handled. Without that a
// call of a page tool was now and then rejected as not one, and Copilot
// ended its turn with "Operation cancelled by user" (the ACP fault soak).
// The order belongs in the library; here it is kept for the one request
// that depends on it (docs/decisions.md).

// acpOrderWait bounds the wait: a notification the library drops without
// calling Core (one it cannot parse) must not hold every later request.
var acpOrderWait = 2 * time.Second

// noteOrder counts one agent's session/update notifications read off its
// stdout and handled by Core.
type noteOrder struct {
	mu         sync.Mutex
	read, done uint64
	wake       chan struct{} // closed at the next handled one; nil if nobody waits
}

func (o *noteOrder) readOne() {
	o.mu.Lock()
	o.read++
	o.mu.Unlock()
}

func (o *noteOrder) doneOne() {
	o.mu.Lock()
	o.done++
	if o.wake != nil {
		close(o.wake)
		o.wake = nil
	}
	o.mu.Unlock()
}

// await returns once the notifications read so far are handled, or ctx
// ends, or acpOrderWait passed.
func (o *noteOrder) await(ctx context.Context) {
	o.mu.Lock()
	target := o.read
	o.mu.Unlock()
	timer := time.NewTimer(acpOrderWait)
	defer timer.Stop()
	for {
		o.mu.Lock()
		if o.done >= target {
			o.mu.Unlock()
			return
		}
		if o.wake == nil {
			o.wake = make(chan struct{})
		}
		wake := o.wake
		o.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// RequestPermission is decided once the updates before it are seen.
func (c *boundClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.b.order.await(ctx)
	return c.acpClient.RequestPermission(ctx, req)
}
