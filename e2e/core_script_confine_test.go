package e2e

// The script provider through the real binary: a page's message cannot
// make its agent act outside the session's work directory, and the
// provider can be turned off in the settings file.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Issue 20: any allowed origin could send `write /any/path`, `write
// ../../x`, `rm`, or `symlink /outside assets/lnk` then `write
// assets/lnk/f`, and the script agent did it.
func TestScriptAgentStaysInWorkDir(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin})
	a := newAssetPage(t, srv, pageOrigin)
	// A link out planted by other means (a real agent's shell).
	if err := os.Symlink(outside, filepath.Join(a.assetsDir(), "planted")); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"write " + filepath.Join(outside, "abs") + " x",
		"write ../../x x",
		"write ../../../../../../../../../../" + strings.TrimPrefix(filepath.Join(outside, "dots"), "/") + " x",
		"rm " + secret,
		"rm ../../..",
		"symlink " + outside + " assets/lnk",
		"write assets/lnk/f x", // lnk was refused, so this makes a directory lnk inside
		"symlink ../../../.. assets/up",
		"write assets/planted/f x",
		"rm assets/planted/secret",
		"ls assets/planted",
		"write assets/fine.txt still works",
	}
	chat := strings.Split(strings.TrimSpace(a.agent(strings.Join(lines, "\n"))), "\n")
	if len(chat) != len(lines) {
		t.Fatalf("%d answers to %d lines:\n%s", len(chat), len(lines), strings.Join(chat, "\n"))
	}
	for i, line := range lines {
		verb, _, _ := strings.Cut(line, " ")
		want := verb + " refused: "
		if strings.HasPrefix(line, "write assets/lnk/") || strings.HasPrefix(line, "write assets/fine") {
			want = verb + " ok: "
		}
		if !strings.HasPrefix(chat[i], want) {
			t.Errorf("%q: %s, want %s...", line, chat[i], want)
		}
	}
	if fi, err := os.Lstat(filepath.Join(a.assetsDir(), "lnk")); err != nil || !fi.IsDir() {
		t.Errorf("assets/lnk: %v, %v", fi, err)
	}
	entries, _ := os.ReadDir(outside)
	if data, _ := os.ReadFile(secret); len(entries) != 1 || string(data) != "secret" {
		t.Errorf("outside the work directory: %v, secret %q", entries, data)
	}
	if _, err := os.Lstat(filepath.Join(srv.StateDir, "sessions", "x")); err == nil {
		t.Errorf("../../x was written")
	}
}

// [providers.script] enabled = false: listed unavailable with the reason,
// refused to a page that asks for it.
func TestScriptProviderTurnedOff(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[providers.script]\nenabled = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testenv.Serve(t, []string{"--config", cfg, "--allow-origin", pageOrigin})
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	var list wire.ListProvidersResult
	json.Unmarshal(p.MustCall(wire.MethodListProviders, map[string]any{}), &list)
	want := fmt.Sprintf("turned off: [providers.script] enabled = false in %s", cfg)
	found := false
	for _, info := range list.Providers {
		if info.Name == "script" {
			found = true
			if info.Available || info.Reason != want {
				t.Errorf("listed %+v, want unavailable: %s", info, want)
			}
		}
	}
	if !found {
		t.Errorf("script is not listed: %+v", list.Providers)
	}
	_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills)})
	if err == nil || err.Code != wire.CodeProviderUnavailable || !strings.Contains(err.Message, want) {
		t.Errorf("createSession with the script provider turned off: %v", err)
	}
}
