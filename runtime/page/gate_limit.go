package page

// UnapprovedFrameLimit bounds a frame from a page whose origin is not
// approved (yet). All such a page may do is ask about its approval
// (origin_gate.go), in frames of some hundred bytes; the SDK sends
// createSession's tool definitions only once approved. Without it, every
// unapproved socket could make Core hold a 4 MiB frame: 48 of them took
// Core from 31 MB to a 430 MB peak. A larger frame closes the socket with
// 1009 (message too big).
const UnapprovedFrameLimit = 8 << 10

// readLimit is the frame size this connection may send now: asked before
// every frame, so an approval (or a revocation) applies to the next one.
func (c *conn) readLimit() int64 {
	if c.originApproved() {
		return 4 * c.srv.MaxMessageBytes
	}
	return UnapprovedFrameLimit
}
