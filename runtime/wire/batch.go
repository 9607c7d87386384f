package wire

// Batched messages on the SDK WebSocket (docs/protocol.md, "Batched
// messages"). A page that understands them connects to /ws?batch=1; Core
// then sends a Hello frame first, and from then on may send several frames
// as one WebSocket text message holding a JSON array of them, in order.
// The page may do the same with its requests once it has the Hello. Every
// frame in an array means exactly what it means alone: events keep their
// seq, responses their id. Pages that do not ask get one frame per message.
const (
	// BatchQueryParam, set to "1" on the /ws URL, asks for batched messages.
	BatchQueryParam = "batch"
	// FrameHello is Core's first frame on a connection that asked for batches.
	FrameHello = "hello"
	// MaxBatchFrames bounds the frames of one array message, either way.
	MaxBatchFrames = 64
)

// Hello is Core's first frame on a batch-capable connection:
// {"type":"hello","batch":true,"maxBatchFrames":64,"maxMessageBytes":1048576}.
// A page sends requests as arrays only after it; an array message is at
// most maxBatchFrames frames and maxMessageBytes bytes.
type Hello struct {
	Type            string `json:"type"`
	Batch           bool   `json:"batch"`
	MaxBatchFrames  int    `json:"maxBatchFrames"`
	MaxMessageBytes int64  `json:"maxMessageBytes"`
	// CoreKey and CoreProof: Core's CoreProof of the nonce the page put in
	// the URL (ProofQueryParam), when it asked.
	CoreKey   string `json:"coreKey,omitempty"`
	CoreProof string `json:"coreProof,omitempty"`
}
