package e2e

// Helpers of the fifth hostile review's last part: an impostor of another
// user on Core's port that speaks the WebSocket handshake by hand, so it
// can stay silent, trickle it, answer late, flood, or close and reopen.

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The impostor's modes (PEDELEC_E2E_R5C_MODE):
//
//   - "silent": accepts and never writes a byte;
//   - "detach": as silent, and closes its listener after the first
//     connection, keeping that connection open: the real Core can then take
//     the port back while the page still waits on the impostor;
//   - "trickle": answers the upgrade one byte a second;
//   - "late": completes the upgrade and sends a hello with a good proof by
//     a key of its own after PEDELEC_E2E_R5C_DELAY seconds;
//   - "flood": completes the upgrade, sends a hello with the proof in
//     PEDELEC_E2E_R5C_PROOF ("key.signature", a replayed proof of the real
//     Core), or one of its own key, then as many events as it can;
//   - "flap": completes the upgrade and closes at once, every time.
//
// It prints "UPGRADE <request line>" for each handshake, "WS <message>"
// for each message it receives, and "SENT <n>" after a flood.
const (
	r5cImpostorEnv = "PEDELEC_E2E_R5C_IMPOSTOR"
	r5cModeEnv     = "PEDELEC_E2E_R5C_MODE"
	r5cDelayEnv    = "PEDELEC_E2E_R5C_DELAY"
	r5cProofEnv    = "PEDELEC_E2E_R5C_PROOF"
	r5cSessionEnv  = "PEDELEC_E2E_R5C_SESSION"
)

func init() {
	if addr := os.Getenv(r5cImpostorEnv); addr != "" {
		runR5cImpostor(addr, os.Getenv(r5cModeEnv))
		os.Exit(0)
	}
}

func runR5cImpostor(addr, mode string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("LISTEN FAILED", err)
		return
	}
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	fmt.Println("READY")
	var once sync.Once
	for {
		c, err := l.Accept()
		if err != nil {
			select {} // detached: keep the connections
		}
		if mode == "detach" {
			once.Do(func() { l.Close() })
		}
		go r5cServe(c, mode, logf)
	}
}

func r5cServe(c net.Conn, mode string, logf func(string, ...any)) {
	defer c.Close()
	if mode == "silent" || mode == "detach" {
		logf("ACCEPTED")
		_, _ = io.Copy(io.Discard, c)
		return
	}
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	logf("UPGRADE %s %s", req.Method, req.URL)
	if req.URL.Path != "/ws" {
		// /healthz and the like: a plain answer, as another server would give.
		fmt.Fprintf(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	answer := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
	if mode == "trickle" {
		for i := 0; i < len(answer); i++ {
			if _, err := c.Write([]byte{answer[i]}); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	} else if _, err := io.WriteString(c, answer); err != nil {
		return
	}
	if mode == "flap" {
		return
	}
	go func() {
		for {
			msg, err := r5cReadMessage(br)
			if err != nil {
				return
			}
			logf("WS %q", msg)
		}
	}()
	key, sign := impostorKey()
	nonce := req.URL.Query().Get(wire.ProofQueryParam)
	hello := wire.Hello{Type: wire.FrameHello, Batch: true, MaxBatchFrames: 64, MaxMessageBytes: 1 << 20, CoreKey: key, CoreProof: sign(nonce)}
	switch mode {
	case "late":
		delay, _ := strconv.Atoi(os.Getenv(r5cDelayEnv))
		time.Sleep(time.Duration(delay) * time.Second)
	case "flood":
		if k, s, ok := strings.Cut(os.Getenv(r5cProofEnv), "."); ok {
			hello.CoreKey, hello.CoreProof = k, s
		}
	}
	data, _ := json.Marshal(hello)
	if r5cWriteText(c, data) != nil {
		return
	}
	if mode != "flood" {
		select {}
	}
	sid := os.Getenv(r5cSessionEnv)
	n := 0
	start := time.Now()
	for time.Since(start) < 8*time.Second {
		// Arrays of events for the page's session and for sessions it does
		// not know (each id new), as a Core would batch them.
		var b strings.Builder
		b.WriteString("[")
		for i := 0; i < 64; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			id := sid
			if i%2 == 1 || id == "" {
				id = fmt.Sprintf("s_flood_%d_%d", n, i)
			}
			fmt.Fprintf(&b, `{"type":"event","event":"chat_delta","sessionId":%q,"seq":%d,"turnId":"t_f","data":{"text":"FLOOD_CHAT %s"}}`, id, n*64+i+1, strings.Repeat("x", 200))
		}
		b.WriteString("]")
		if r5cWriteText(c, []byte(b.String())) != nil {
			break
		}
		n++
	}
	logf("SENT %d", n)
}

// r5cWriteText writes one unmasked text frame, as a server does.
func r5cWriteText(w io.Writer, data []byte) error {
	head := []byte{0x81}
	switch n := len(data); {
	case n < 126:
		head = append(head, byte(n))
	case n < 1<<16:
		head = append(head, 126, byte(n>>8), byte(n))
	default:
		head = append(head, 127)
		head = binary.BigEndian.AppendUint64(head, uint64(n))
	}
	_, err := w.Write(append(head, data...))
	return err
}

// r5cReadMessage reads one frame from a client (masked) and returns its payload.
func r5cReadMessage(r *bufio.Reader) ([]byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > 16<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	var mask [4]byte
	if h[1]&0x80 != 0 {
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return nil, err
		}
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, err
	}
	for i := range p {
		p[i] ^= mask[i%4]
	}
	if h[0]&0x0f == 8 {
		return nil, fmt.Errorf("close frame %q", p)
	}
	return p, nil
}

// r5cImpostor runs the impostor as uid on addr in mode, with extra
// environment entries; peek returns what it printed so far, stop ends it
// and returns all of it.
func r5cImpostor(t *testing.T, uid, addr, mode string, env ...string) (peek, stop func() string) {
	t.Helper()
	return runHostile(t, uid, "r5c-impostor", append([]string{r5cImpostorEnv + "=" + addr, r5cModeEnv + "=" + mode}, env...)...)
}

// r5cProof is what a page of Core's origin (or any page: the hello is
// Core's answer to whoever asks) can get from the real Core: a hello's
// proof for a nonce of its own, to replay on another connection.
func r5cProof(t *testing.T, b *browser, coreURL string) string {
	t.Helper()
	u, _ := url.Parse(coreURL)
	var proof string
	b.js(t, &proof, `
const ws = new WebSocket("ws://`+u.Host+`/ws?batch=1&proof=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
const hello = await new Promise((res, rej) => { ws.onmessage = (e) => res(JSON.parse(e.data)); ws.onclose = () => rej(new Error("closed")); });
ws.close();
return hello.coreKey + "." + hello.coreProof;
`)
	return proof
}

// restart starts Core again as its user on the same address and state
// directory, once it stopped, and waits until it answers.
func (c *r5Core) restart(t *testing.T) {
	t.Helper()
	if c.srv != nil {
		c.srv.Restart(t)
		return
	}
	<-c.done
	old := c.cmd
	c.cmd = exec.Command(old.Path, old.Args[1:]...)
	c.cmd.Env, c.cmd.Dir, c.cmd.Stdout, c.cmd.Stderr = old.Env, old.Dir, old.Stdout, old.Stderr
	c.done = make(chan struct{})
	_, _ = c.logs.Write([]byte("\n---- restart ----\n"))
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := c.done
	cmd := c.cmd
	go func() { _ = cmd.Wait(); close(done) }()
	testenv.Await(t, 20*time.Second, "Core (uid "+c.uid+") to listen again", func() bool {
		select {
		case <-done:
			t.Fatalf("pedelec serve as uid %s exited:\n%s", c.uid, c.logs.String())
		default:
		}
		conn, err := net.DialTimeout("tcp", c.Addr, time.Second)
		if err != nil {
			return false
		}
		conn.Close()
		return true
	})
}
