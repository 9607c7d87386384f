package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What one ACP agent can make Core hold is bounded here, whatever the ACP
// library does (docs/decisions.md): coder/acp-go-sdk starts a goroutine
// for every request an agent sends and never limits them, and its answers
// block for as long as the agent does not read its stdin. A flooding
// agent took Core to 239,202 goroutines and 2.87 GB in 40 s. So the
// agent's pipes go through an acpBound, which counts what the agent has
// asked and not been answered yet, and bounds each write to its stdin in
// time; past either bound the agent is stopped and its turn ends with
// PROVIDER_ERROR naming why. What it has notified and Core not handled
// yet is bounded by reading no more of it meanwhile (acp_window.go): an
// agent is never stopped for how much it says.
var (
	// acpMaxInflight bounds the requests of one agent Core has not answered.
	acpMaxInflight = 64
	// acpWriteTimeout bounds one write to the agent's stdin: an agent that
	// stopped reading it is stopped this long after Core's next message.
	acpWriteTimeout = 10 * time.Second
	// acpMaxLine bounds one message from the agent, as the library does.
	acpMaxLine = 10 << 20
)

// acpBound watches one agent's pipes.
type acpBound struct {
	name string
	stop func()          // stops the agent (acpProcess.stop); called at most once, off the pipes' goroutines
	gone <-chan struct{} // closed once the agent is stopped (acpProcess.gone), for whatever reason

	mu       sync.Mutex
	inflight map[string]int // the agent's request ids Core has not answered, with their count
	pending  int            // how many, in all

	notes *noteWindow // notifications read and not handled yet (acp_window.go)
	order noteOrder   // session/updates read and handled, for the requests after them (acp_order.go)
	cause atomic.Pointer[error]
	once  sync.Once

	// sessions are the ACP sessions this connection opened or loaded; an
	// update for another is dropped (told once).
	sessions sync.Map
	known    atomic.Bool // some session is known: before that, nothing is a stray
	strayed  atomic.Bool
}

func newACPBound(name string, stop func(), gone <-chan struct{}) *acpBound {
	return &acpBound{name: name, stop: stop, gone: gone, inflight: map[string]int{}, notes: newNoteWindow()}
}

// fail records why the agent is stopped and stops it, once.
func (b *acpBound) fail(format string, args ...any) {
	err := fmt.Errorf(format, args...)
	b.once.Do(func() {
		b.cause.Store(&err)
		go b.stop()
	})
}

// Cause is why the bound stopped the agent; nil if it did not.
func (b *acpBound) Cause() error {
	if p := b.cause.Load(); p != nil {
		return *p
	}
	return nil
}

// err is the PROVIDER_ERROR of an agent the bound stopped, with how its
// process p ended; nil if the bound stopped nothing.
func (b *acpBound) err(p *acpProcess) error {
	cause := b.Cause()
	if cause == nil {
		return nil
	}
	return wire.Errorf(wire.CodeProviderError, "%v", cause).WithDetails(p.exitStatus())
}

// jsonrpcHead is what the bound reads of each message.
type jsonrpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func idKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return string(id)
	}
	return buf.String()
}

// reader is what the library reads the agent's stdout from: the same
// lines, counted, with marks among them (acp_window.go), until the agent
// is stopped. A notification waits here while the library holds too many.
func (b *acpBound) reader(stdout io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := readLine(br, acpMaxLine)
			if errors.Is(err, errLineTooLong) {
				b.fail("%s sent a message of more than %d MiB", b.name, acpMaxLine>>20)
				pw.CloseWithError(err)
				return
			}
			if len(line) > 0 && line[len(line)-1] != '\n' {
				// The last line, the output ending without its newline:
				// a mark written after it must not be glued onto it.
				line = append(line, '\n')
			}
			if len(line) > 0 && b.Cause() == nil {
				note, method := b.count(line)
				if b.Cause() != nil {
					pw.CloseWithError(b.Cause())
					return
				}
				if note && !b.admit(pw, len(line)) {
					pw.CloseWithError(errACPStopped)
					return
				}
				if method == acp.ClientMethodSessionUpdate {
					b.order.readOne()
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
				if note {
					if mark := b.notes.passed(len(line)); mark != nil {
						if _, werr := pw.Write(mark); werr != nil {
							return
						}
					}
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// count notes a request from the agent, and says whether the line is a
// notification the library queues (note), with its method.
func (b *acpBound) count(line []byte) (note bool, method string) {
	var h jsonrpcHead
	if json.Unmarshal(line, &h) != nil || h.Method == "" {
		return false, "" // a response to Core, or something the library will refuse
	}
	if len(h.ID) == 0 || string(h.ID) == "null" {
		// $/cancel_request is handled at once by the library, not queued.
		return h.Method != "$/cancel_request", h.Method
	}
	b.mu.Lock()
	b.inflight[idKey(h.ID)]++
	b.pending++
	n := b.pending
	b.mu.Unlock()
	if n > acpMaxInflight {
		b.fail("%s had more than %d requests Core had not answered yet (the last: %s): it was stopped", b.name, acpMaxInflight, clipActivity(h.Method))
	}
	return false, ""
}

// answered notes Core's answer to one of the agent's requests.
func (b *acpBound) answered(id json.RawMessage) {
	k := idKey(id)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.inflight[k]; n > 0 {
		b.pending--
		if n == 1 {
			delete(b.inflight, k)
		} else {
			b.inflight[k] = n - 1
		}
	}
}

var (
	errLineTooLong = errors.New("message too long")
	errACPStopped  = errors.New("the agent was stopped")
)

// readLine reads one line (with its newline) of at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// deadlineWriter is the agent's stdin pipe.
type deadlineWriter interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}

// boundWriter is what the library writes the agent's stdin through.
type boundWriter struct {
	b *acpBound
	w io.Writer
}

func (b *acpBound) writer(stdin io.Writer) io.Writer { return &boundWriter{b: b, w: stdin} }

// Write sends one message (the library writes each whole, under its own
// lock), within acpWriteTimeout, and notes an answer to the agent.
func (w *boundWriter) Write(p []byte) (int, error) {
	if err := w.b.Cause(); err != nil {
		return 0, err
	}
	dw, timed := w.w.(deadlineWriter)
	if timed {
		dw.SetWriteDeadline(time.Now().Add(acpWriteTimeout))
	}
	n, err := w.w.Write(p)
	if timed && errors.Is(err, os.ErrDeadlineExceeded) {
		w.b.fail("%s stopped reading its stdin: a message of %d bytes did not go through within %s: it was stopped", w.b.name, len(p), acpWriteTimeout)
		return n, w.b.Cause()
	}
	if err == nil {
		var h jsonrpcHead
		if json.Unmarshal(p, &h) == nil && h.Method == "" && len(h.ID) > 0 {
			w.b.answered(h.ID)
		}
	}
	return n, err
}

// allowSession marks an ACP session as this connection's own.
func (b *acpBound) allowSession(id acp.SessionId) {
	b.sessions.Store(id, true)
	b.known.Store(true)
}

// client wraps the handler the library calls: Core's marks are taken
// (acp_window.go), and updates for a session this connection never opened
// are dropped (and told once).
func (b *acpBound) client(c *acpClient) acp.Client { return &boundClient{acpClient: c, b: b} }

type boundClient struct {
	*acpClient
	b *acpBound
}

func (c *boundClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	defer c.b.order.doneOne()
	if _, ok := c.b.sessions.Load(n.SessionId); !ok && c.b.known.Load() {
		if c.b.strayed.CompareAndSwap(false, true) {
			c.emit(Event{Warning: fmt.Sprintf("%s sent an update for ACP session %q, which Core never gave it: dropped (and any more like it)", c.b.name, clipActivity(string(n.SessionId)))})
		}
		return nil
	}
	return c.acpClient.SessionUpdate(ctx, n)
}

// HandleExtensionMethod takes Core's own marks; the agent's extension
// methods get what the library answers a client without this hook:
// method not found (which it leaves unanswered for a notification).
func (c *boundClient) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method == acpMarkMethod && c.b.notes.handled(params) {
		return nil, nil
	}
	return nil, acp.NewMethodNotFound(method)
}
