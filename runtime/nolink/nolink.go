// Package nolink makes directories and writes files inside a session's
// directory without following a link found there. Core made that
// directory but does not trust what is in it: the session's agent writes
// there, and a state directory restored from a backup brings whatever it
// held. A link there, followed, would have Core make directories, empty
// Codex's roots directory and write settings (an API key among them) or
// the session's id wherever the link points: anywhere, with Core as root.
// Files are written by runtime/secretfile's writer, which keeps Core's
// secrets in the state directory the same way.
package nolink

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kaoruisaac/pedelec/runtime/secretfile"
)

// Dir makes root/names[0]/names[1]/... (each name one path element) as
// directories of their own: one that is a link or a file is replaced by a
// directory. It returns the path.
func Dir(root string, names ...string) (string, error) {
	// root itself is Core's to trust (the state directory's sessions/<name>).
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	dir := root
	for _, name := range names {
		dir = filepath.Join(dir, name)
		if err := ownDir(dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// ownDir makes dir a directory (not a link to one), 0700 when made.
func ownDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err == nil && fi.IsDir() {
		return nil
	}
	if err == nil {
		if err := os.Remove(dir); err != nil { // a link or a file: never followed
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory of its own", dir)
	}
	return nil
}

// WriteFile writes path (in a directory Dir made) as Core writes its own
// secrets: a new 0600 file created exclusively beside it, then renamed
// over it, so what was there, a link included, is replaced, never written
// through. One writer per file at a time, as a session's agent starts are.
func WriteFile(path string, data []byte) error {
	return secretfile.Write(filepath.Dir(path), filepath.Base(path), data)
}
