package coreauth

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// ProofTimeout bounds the proof exchange: Core answers it at once.
const ProofTimeout = 5 * time.Second

// Expect names the key a client expects and where it came from, for the
// message when what answers cannot prove it.
type Expect struct {
	Key  string
	From string // "PEDELEC_CORE_KEY", "<state-dir>/core-key"
}

// KeySource gives the key to expect; it is asked at each new connection
// (a state directory's key appears when its Core first starts).
type KeySource func() (Expect, error)

// FromStateDir expects the key of stateDir's Core.
func FromStateDir(stateDir string) KeySource {
	return func() (Expect, error) {
		from := keyPath(stateDir)
		key, err := PublicKey(stateDir)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return Expect{From: from}, fmt.Errorf("there is no Core key at %s to check it against: has `pedelec serve` ever run with --state-dir %s?", from, stateDir)
			}
			return Expect{From: from}, fmt.Errorf("cannot read Core's key to check it against: %w", err)
		}
		return Expect{Key: key, From: from}, nil
	}
}

// FromEnv expects the key Core put in an agent's environment
// (wire.EnvCoreKey), else the key of the state directory in
// PEDELEC_STATE_DIR or the default one: a command run by hand.
func FromEnv(getenv func(string) string, defaultStateDir string) KeySource {
	if key := getenv(wire.EnvCoreKey); key != "" {
		return func() (Expect, error) { return Expect{Key: key, From: wire.EnvCoreKey}, nil }
	}
	dir := getenv("PEDELEC_STATE_DIR")
	if dir == "" {
		dir = defaultStateDir
	}
	return FromStateDir(dir)
}

// Dialer connects to Core and makes it prove its key on the new
// connection before handing it over: every byte a client then writes on
// it goes to the Core it expects, or to nobody. Set it as an
// http.Transport's DialContext, or call it for a connection of one's own.
type Dialer struct {
	Expect KeySource
	// CoreURL names Core in messages (http://127.0.0.1:7077).
	CoreURL string
}

// DialContext dials addr and runs the proof on the connection: GET
// wire.CoreProofPath with a fresh nonce, whose answer must be signed by
// the expected key. A failed proof is CORE_NOT_AUTHENTIC naming what
// answered; the connection is closed.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	br, err := d.prove(ctx, conn, addr)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &provenConn{Conn: conn, r: br}, nil
}

func (d *Dialer) prove(ctx context.Context, conn net.Conn, addr string) (*bufio.Reader, error) {
	want, err := d.Expect()
	if err != nil {
		return nil, d.notAuthentic(conn, err.Error())
	}
	deadline := time.Now().Add(ProofTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	nonce := NewNonce()
	fmt.Fprintf(conn, "GET %s?nonce=%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: pedelec\r\n\r\n", wire.CoreProofPath, nonce, addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, d.notAuthentic(conn, fmt.Sprintf("it did not answer Core's proof request within %s", ProofTimeout))
		}
		return nil, d.notAuthentic(conn, fmt.Sprintf("it did not answer Core's proof request with HTTP (%v)", err))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	resp.Body.Close()
	if err != nil {
		return nil, d.notAuthentic(conn, fmt.Sprintf("its answer to Core's proof request was cut (%v)", err))
	}
	if resp.StatusCode != http.StatusOK {
		// The peer check of a real Core refuses another user before any
		// proof: its answer is the truth for that user, and nothing
		// secret was sent either way.
		var refused wire.AgentResult
		if json.Unmarshal(body, &refused) == nil && refused.Error != nil && refused.Error.Code == wire.CodePeerNotAllowed {
			return nil, refused.Error
		}
		found := fmt.Sprintf("it answered Core's proof request with HTTP %s", resp.Status)
		if s := resp.Header.Get("Server"); s != "" {
			found += ", Server: " + strings.ToValidUTF8(s, "?")
		}
		if len(body) > 0 {
			found += fmt.Sprintf(", %.120q", body)
		}
		return nil, d.notAuthentic(conn, found)
	}
	var p wire.CoreProof
	if json.Unmarshal(body, &p) != nil || p.Key == "" {
		return nil, d.notAuthentic(conn, fmt.Sprintf("it answered Core's proof request with something that is not a proof: %.120q", body))
	}
	switch err := VerifyAddress(want.Key, addr, nonce, p); {
	case errors.Is(err, errOtherKey):
		return nil, d.notAuthentic(conn, fmt.Sprintf("it proves another key (%s) than the one in %s (%s): a program that is not this Core, or a Pedelec Core of another state directory", short(p.Key), want.From, short(want.Key)))
	case err != nil:
		return nil, d.notAuthentic(conn, "it claims this Core's key, but "+err.Error())
	}
	conn.SetDeadline(time.Time{})
	return br, nil
}

// notAuthentic is the CORE_NOT_AUTHENTIC error: what answered, and, where
// the system tells, which user holds the port.
func (d *Dialer) notAuthentic(conn net.Conn, found string) *wire.Error {
	details := map[string]any{"coreUrl": d.CoreURL, "found": found, "address": conn.RemoteAddr().String()}
	holder := ""
	if uid, err := peercred.ServerOwner(conn); err == nil {
		details["listenerUid"] = uid
		holder = fmt.Sprintf("; the port is held by %s", userName(uid))
		if uid != os.Getuid() {
			holder += ", not by you"
		}
	}
	return wire.Errorf(wire.CodeCoreNotAuthentic,
		"what answers at %s (%s) could not prove it is Pedelec Core: %s%s. Nothing secret was sent to it. If Core is down, another program may have taken its port: start `pedelec serve`, or find who listens there",
		d.CoreURL, conn.RemoteAddr(), found, holder).WithDetails(details)
}

func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return fmt.Sprintf("uid %d", uid)
}

// provenConn reads through the reader the proof was read with, which may
// hold bytes of what follows.
type provenConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *provenConn) Read(p []byte) (int, error) {
	if c.r.Buffered() > 0 {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}
