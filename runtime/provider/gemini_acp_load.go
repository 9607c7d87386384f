package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Gemini CLI 0.61.0 cannot session/load a session in the same UTC minute
// as its chat file's name: its loadSession first starts a fresh chat
// recording for the session id, which appends a new header and a
// `$set messages` holding only the <session_context> block to
// chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl, and only
// then reads the chats. Named for the current minute, that is the
// session's own file: the appended record replaces its messages, the file
// no longer has resumable content, and the load fails with "No previous
// sessions found for this project" (a Core restart within a minute of the
// last turn; FACTS-acp §2's "killed mid-turn" case is the same). Gemini
// finds a session by the file's content, not its name, so before a load
// the session's files are renamed to a form the recording never writes
// (session-kept-...): the fresh recording gets a file of its own, which
// holds nothing resumable and is skipped, and the load reads the real one
// and writes on to it.

// geminiChatName is the name Gemini's recording gives a session's file.
var geminiChatName = regexp.MustCompile(`^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-[0-9A-Za-z_-]{1,8}\.jsonl$`)

// geminiBeforeLoad renames the chat files of session id under the
// session's Gemini home (env's GEMINI_CLI_HOME).
func geminiBeforeLoad(env map[string]string, id string) error {
	home := env["GEMINI_CLI_HOME"]
	if home == "" || len(id) < 8 {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if err != nil {
		return err
	}
	for _, f := range files {
		name := filepath.Base(f)
		if !geminiChatName.MatchString(name) || !strings.HasSuffix(name, "-"+id[:8]+".jsonl") {
			continue
		}
		kept := filepath.Join(filepath.Dir(f), "session-kept-"+strings.TrimPrefix(name, "session-"))
		if err := os.Rename(f, kept); err != nil {
			return err
		}
	}
	return nil
}
