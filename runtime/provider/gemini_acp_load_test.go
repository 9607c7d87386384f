package provider

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Before a session/load the session's chat files are renamed out of the
// names Gemini's fresh recording writes; other sessions' files, and a
// file already renamed, stay as they are.
func TestGeminiBeforeLoadRenamesTheSessionsChats(t *testing.T) {
	home := t.TempDir()
	chats := filepath.Join(home, ".gemini", "tmp", "work", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"session-2026-12-01T16-02-3f80f70a.jsonl", "session-2026-12-01T16-05-ba13e2d7.jsonl", "session-kept-2026-12-01T15-00-3f80f70a.jsonl"} {
		if err := os.WriteFile(filepath.Join(chats, n), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := geminiBeforeLoad(map[string]string{"GEMINI_CLI_HOME": home}, "3f80f70a-6335-4501-8a9c-57305b021704"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(chats)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"session-2026-12-01T16-05-ba13e2d7.jsonl", "session-kept-2026-12-01T15-00-3f80f70a.jsonl", "session-kept-2026-12-01T16-02-3f80f70a.jsonl"}
	if !slices.Equal(got, want) {
		t.Errorf("chats = %v, want %v", got, want)
	}
}
