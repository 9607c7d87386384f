package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/prompt"
	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/nolink"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// workDirs are one session's private directories under the state dir:
//
//	sessions/<name>/work  the provider's working directory
//	sessions/<name>/work/assets  the files the page and the agent share (runtime/assets)
//	sessions/<name>/bin   pedelec and pedelec-cli, first on the provider's PATH
//	sessions/<name>/session-id  the session's id, for recover
//
// The name is not the session id (WorkDirName): the directory is in every
// provider process's command line (`…/bin/pedelec script-agent`, `codex -C
// …/work`), which any local user can read with ps, and a session id is what
// a page resumes a session with (issue 20).
type workDirs struct {
	root, work, bin string
}

// sessionIDFile names the file in a work directory that holds its session's
// id: a stale directory's name no longer tells which session it was.
const sessionIDFile = "session-id"

// WorkDirName is the name of a session's directory: a hash of its id
// (hashedID), because the path is in provider processes' command lines.
func WorkDirName(sessionID string) string {
	return ids.Hashed("w_", "pedelec work directory", sessionID)
}

// agentThreadID is the id a session's agent knows it by: the
// <pedelec_thread_id> of its prompt, which it passes as `pedelec-cli
// --thread-id` and so shows in every user's process listing. A hash of the
// session id, like the work directory's name, so a listing never shows the
// id a page resumes the session with; it is the same after a restart, so
// an agent's resumed conversation keeps working. The agent endpoint
// accepts it or the session id, and either only with the session's secret.
func agentThreadID(sessionID string) string {
	return ids.Hashed("t_", "pedelec agent thread", sessionID)
}

// AgentThreadID is agentThreadID, for tests that act as a session's agent.
func AgentThreadID(sessionID string) string { return agentThreadID(sessionID) }

// WorkDir is the path of a session's work directory under stateDir.
func WorkDir(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "sessions", WorkDirName(sessionID))
}

// WorkDirSessionID tells which session the directory sessions/<name> was
// made for: read from its session-id file, or the name itself for a
// directory made before names were hashed. "" when it cannot tell.
func WorkDirSessionID(stateDir, name string) string {
	if isOldWorkDirName(name) {
		return name
	}
	data, err := readSessionIDFile(filepath.Join(stateDir, "sessions", name, sessionIDFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// readSessionIDFile reads a session-id file that is a small regular file.
// Anything else there (a FIFO, a link, a device) was not written by Core,
// and is never opened: opening a FIFO to read it waited for a writer (and
// start-up with it), and opening a device node, which a backup restored as
// root can hold, can act on the device by itself. So the name is looked at
// first; the open is non-blocking, and what was opened must be what was
// looked at (a swap between the two is refused, never read).
func readSessionIDFile(path string) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|assets.OpenNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, fi) {
		return nil, fmt.Errorf("%s changed while it was opened", path)
	}
	return io.ReadAll(io.LimitReader(f, 1024))
}

// makeWorkDirs makes (or, for a restored session, finds) a session's
// directories and links the running binary into its bin.
func makeWorkDirs(stateDir, sessionID, executable string) (workDirs, error) {
	root := WorkDir(stateDir, sessionID)
	// A session restored from a Core that named directories by id keeps its
	// files.
	if _, err := os.Lstat(root); errors.Is(err, os.ErrNotExist) && isOldWorkDirName(sessionID) {
		err := os.Rename(filepath.Join(stateDir, "sessions", sessionID), root)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return workDirs{root: root}, err
		}
	}
	d := workDirs{root: root, work: filepath.Join(root, "work"), bin: filepath.Join(root, "bin")}
	// A restored directory may hold links where these go (sessions itself
	// is checked at start: statedir.go): never followed.
	sessions, name := filepath.Split(root)
	for _, dir := range [][]string{{name, "work", assets.DirName}, {name, "bin"}} {
		if _, err := nolink.Dir(sessions, dir...); err != nil {
			return d, err
		}
	}
	if err := nolink.WriteFile(filepath.Join(root, sessionIDFile), []byte(sessionID+"\n")); err != nil {
		os.RemoveAll(root)
		return d, err
	}
	// Links, not copies: the agent runs exactly the binary serving it. The
	// binary looks at the name it was invoked under, so pedelec-cli works.
	// A restored session's links point at the binary that served before.
	for _, name := range []string{"pedelec", prompt.CLI} {
		link := filepath.Join(d.bin, name)
		os.Remove(link)
		if err := linkExecutable(executable, link); err != nil {
			os.RemoveAll(root)
			return d, err
		}
	}
	return d, nil
}

// isOldWorkDirName reports whether id could have named a directory before
// names were hashed: one of Core's own ids, a single path element.
func isOldWorkDirName(id string) bool {
	return strings.HasPrefix(id, "s_") && filepath.Base(id) == id && !strings.ContainsAny(id, `/\`)
}

func linkExecutable(target, link string) error {
	if err := os.Symlink(target, link); err == nil {
		return nil
	}
	// Some file systems (and Windows without privileges) refuse symlinks.
	data, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	return os.WriteFile(link, data, 0o700)
}

// env is a provider process's environment: the user's own, minus any
// Pedelec variables inherited from elsewhere, plus this session's. The
// environment, unlike the command line, is readable by this user only, so
// the session id and secret go here.
func (d workDirs) env(coreURL, coreKey, sessionID, secret string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PEDELEC_") || strings.HasPrefix(kv, "PATH=") {
			continue
		}
		env = append(env, kv)
	}
	path := d.bin
	if p := os.Getenv("PATH"); p != "" {
		path += string(os.PathListSeparator) + p
	}
	return append(env,
		"PATH="+path,
		wire.EnvThreadID+"="+sessionID,
		wire.EnvCoreURL+"="+coreURL,
		wire.EnvSecret+"="+secret,
		wire.EnvCoreKey+"="+coreKey,
	)
}
