package agentclient

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
)

// oneShot sends req over a connection of its own and reads the answer:
// the whole life of a `pedelec tool-call` process is one request to Core
// on loopback. http.Transport would start a connection pool, a reader and
// a writer goroutine, look up proxies and prepare HTTP/2 first; in a fresh
// process that costs more than the call itself (issue 15: about 80 page
// faults, 2 ms of CPU). The request and the response still go through
// net/http's own writer and parser.
func oneShot(req *http.Request, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*http.Response, error) {
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	if req.URL.Scheme != "http" {
		return oneShotTLS(dial).Do(req) // an https Core: the full client
	}
	host := req.URL.Host
	if req.URL.Port() == "" {
		host = net.JoinHostPort(strings.Trim(req.URL.Hostname(), "[]"), "80")
	}
	ctx := req.Context()
	conn, err := dial(ctx, "tcp", host)
	if err != nil {
		return nil, ctxErr(ctx, err) // cancelled while connecting: say so, as below
	}
	// Core owns the call's deadline; a cancelled context (the agent's
	// Ctrl-C) ends the wait.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	req.Close = true // Connection: close; Core ends the response with the connection
	if err := req.Write(conn); err != nil {
		stop()
		conn.Close()
		return nil, ctxErr(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		stop()
		conn.Close()
		return nil, ctxErr(ctx, err)
	}
	resp.Body = &connBody{ReadCloser: resp.Body, conn: conn, stop: stop, ctx: ctx}
	return resp, nil
}

// connBody closes the connection with the body.
type connBody struct {
	io.ReadCloser
	conn net.Conn
	stop func() bool
	ctx  context.Context
}

func (b *connBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = ctxErr(b.ctx, err)
	}
	return n, err
}

func (b *connBody) Close() error {
	b.stop()
	b.ReadCloser.Close()
	return b.conn.Close()
}

// ctxErr names the cancellation rather than the closed connection it caused.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return errors.Join(cerr, err)
	}
	return err
}

// oneShotTLS is the client for a Core reached over https: no proxy lookup
// (Core is local), no HTTP/2 set-up, no idle connection kept.
func oneShotTLS(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:             nil,
		DialContext:       dial,
		DisableKeepAlives: true,
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
	}}
}
