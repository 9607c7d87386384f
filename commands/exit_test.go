package commands

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// urfave/cli's parse errors reach exit 2 through OnUsageError, whatever
// their text; tool-call and tool-spec still print one JSON object.
func TestUsageErrorsAreToldApartByType(t *testing.T) {
	for _, args := range [][]string{
		{"pedelec", "--no-such-flag"},
		{"pedelec", "validate-tools", "--no-such-flag", "x.json"},
		{"pedelec", "providers", "--no-such-flag"},
		{"pedelec", "serve", "--max-sessions", "many"},
		{"pedelec", "serve", "--addr"},
		{"pedelec", "validate-tool", "x.json"}, // help's "No help topic", a cli.ExitCoder
	} {
		var out, errOut bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errOut); code != wire.ExitUsage {
			t.Errorf("%q: exit %d, want %d; stderr %q", args, code, wire.ExitUsage, errOut.String())
		}
		if !strings.HasPrefix(errOut.String(), "pedelec: ") {
			t.Errorf("%q: stderr %q does not say what was wrong", args, errOut.String())
		}
	}
	for _, args := range [][]string{
		{"pedelec", "tool-call", "--no-such-flag", "t", "{}"},
		{"pedelec", "tool-spec", "--thread-id"},
		{"pedelec", "tool-call"},
	} {
		var out, errOut bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errOut)
		if code != wire.ExitUsage || agentCode(t, out.String()) != wire.CodeInvalidInput {
			t.Errorf("%q: exit %d, stdout %q", args, code, out.String())
		}
		// The JSON on stdout is the answer; on a terminal a second copy on
		// stderr showed every error twice.
		if errOut.Len() != 0 {
			t.Errorf("%q: stderr %q repeats the JSON answer", args, errOut.String())
		}
	}
}

// urfave/cli reports a missing Required flag with an unexported type and no
// hook, so exitCode could only match its text; no flag is Required, so it
// never arises (docs/decisions.md). This keeps it so.
func TestNoFlagIsRequired(t *testing.T) {
	app := NewApp(strings.NewReader(""), io.Discard, io.Discard)
	check := func(where string, flags []cli.Flag) {
		for _, f := range flags {
			if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
				t.Errorf("%s --%s is Required: check it in the action and return a usageError instead", where, f.Names()[0])
			}
		}
	}
	check(app.Name, app.Flags)
	for _, hc := range walkCommands(app) {
		check(strings.Join(hc.path, " "), hc.cmd.Flags)
	}
}

// No Core at the address: CORE_UNREACHABLE and exit 75, the status an agent
// retries on; Core answering with an error is exit 1.
func TestToolCallCoreUnreachableExit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	t.Setenv(wire.EnvCoreURL, dead)
	t.Setenv(wire.EnvSecret, "k_x")
	for _, args := range [][]string{
		{"pedelec", "tool-call", "--thread-id", "s_x", "update_counter", "{}"},
		{"pedelec", "tool-spec", "--thread-id", "s_x", "update_counter"},
	} {
		var out, errOut bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errOut)
		if code != wire.ExitCoreUnreachable || agentCode(t, out.String()) != wire.CodeCoreUnreachable {
			t.Errorf("%q: exit %d, stdout %q", args[1], code, out.String())
		}
	}

	core := fakeCore(t, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(wire.AgentResult{Error: wire.Errorf(wire.CodeToolNotFound, "no tool")})
	})
	defer core.Close()
	t.Setenv(wire.EnvCoreURL, core.URL)
	var out, errOut bytes.Buffer
	if code := Main([]string{"pedelec", "tool-spec", "--thread-id", "s_x", "nope"}, strings.NewReader(""), &out, &errOut); code != wire.ExitFailed {
		t.Errorf("a Pedelec error: exit %d, want %d", code, wire.ExitFailed)
	}
}

// A tool-call interrupted while it waits for the page exits 130 (SIGINT) or
// 143 (SIGTERM), prints TOOL_CALL_CANCELLED, and drops the request, which is
// how Core learns to settle the call as cancelled.
func TestToolCallInterruptedExit(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, wire.ExitInterrupted}, {syscall.SIGTERM, wire.ExitTerminated}} {
		arrived, gone := make(chan struct{}), make(chan struct{})
		core := fakeCore(t, func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body) // as Core does; then net/http sees the client go
			close(arrived)
			<-r.Context().Done() // a page that never answers
			close(gone)
		})
		t.Setenv(wire.EnvCoreURL, core.URL)
		t.Setenv(wire.EnvSecret, "k_x")
		go func() {
			<-arrived
			syscall.Kill(syscall.Getpid(), c.sig) // caught: interruptible is listening
		}()
		var out, errOut bytes.Buffer
		code := Main([]string{"pedelec", "tool-call", "--thread-id", "s_x", "slow", "{}"}, strings.NewReader(""), &out, &errOut)
		if code != c.want || agentCode(t, out.String()) != wire.CodeToolCallCancelled {
			t.Errorf("%v: exit %d, want %d; stdout %q", c.sig, code, c.want, out.String())
		}
		select {
		case <-gone:
		case <-time.After(10 * time.Second):
			t.Errorf("%v: Core's request was not dropped", c.sig)
		}
		core.Close()
	}
}

func agentCode(t *testing.T, stdout string) wire.Code {
	t.Helper()
	var res wire.AgentResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Error == nil {
		t.Errorf("stdout is not one failed result: %q", stdout)
		return ""
	}
	return res.Error.Code
}

// Every refusal tool-call makes before reaching Core is one JSON answer on
// stdout with its own code, and nothing on stderr.
func TestToolCallRefusalsPrintOnce(t *testing.T) {
	t.Setenv(wire.EnvCoreURL, "")
	t.Setenv(wire.EnvSecret, "")
	t.Setenv(wire.EnvThreadID, "")
	for _, tc := range []struct {
		args []string
		code wire.Code
	}{
		{[]string{"pedelec", "tool-call", "t", "{"}, wire.CodeToolArgsInvalid},
		{[]string{"pedelec", "tool-call", "t", "{}"}, wire.CodeNotInSession},
		{[]string{"pedelec", "tool-spec", "t"}, wire.CodeNotInSession},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, strings.NewReader(""), &out, &errOut)
		if code != wire.ExitUsage || agentCode(t, out.String()) != tc.code || errOut.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, %s once on stdout", tc.args, code, out.String(), errOut.String(), tc.code)
		}
	}
}
