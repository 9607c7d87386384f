// Package secretfile writes and reads the secrets Core keeps in its state
// directory (the Core token, the approver token, Core's signing key) so
// that no link planted there is ever followed: a symbolic link at the
// file's name or at its temporary name is replaced or refused, never
// written through, and the mode is 0600 from the moment the file exists.
// Everything goes through an os.Root of the state directory, whose
// O_CREATE|O_EXCL opens fail on a link instead of following it.
package secretfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Mode is every secret file's mode, set as it is created.
const Mode fs.FileMode = 0o600

// Write replaces dir/name with data, atomically: data goes to a fresh
// dir/name.tmp (created exclusively, so a link planted there is removed,
// not followed), then is renamed over name (which replaces a link there
// instead of writing through it).
func Write(dir, name string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tmp := name + ".tmp"
	if err := writeNew(root, tmp, data); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// Create writes dir/name with data unless it exists; it reports whether it
// wrote it. Two processes creating it at once agree on one content: the
// file appears by a hard link of a complete temporary file, which fails if
// the name is taken (by anything, a link included).
func Create(dir, name string, data []byte) (bool, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, err
	}
	defer root.Close()
	tmp := name + ".new"
	if err := writeNew(root, tmp, data); err != nil {
		return false, err
	}
	defer root.Remove(tmp)
	if err := root.Link(tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// writeNew creates name exclusively with mode 0600 and writes data. A file
// or link already there (left by a crash, or planted) is removed first:
// Remove takes the link itself away, never what it points to.
func writeNew(root *os.Root, name string, data []byte) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, Mode)
	if errors.Is(err, fs.ErrExist) {
		if err := root.Remove(name); err != nil {
			return err
		}
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, Mode)
	}
	if err != nil {
		return err
	}
	// The umask can only take bits away from Mode; Chmod makes sure no
	// other bit is there either way.
	err = f.Chmod(Mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(name)
	}
	return err
}

// Read reads dir/name, which must be a regular file: a link there is
// refused, not followed, and the file read is the one that was checked.
func Read(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s in %s is not a regular file (%s): a secret is never read through a link", name, dir, info.Mode().Type())
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(info, opened) {
		return nil, fmt.Errorf("%s in %s changed while it was opened", name, dir)
	}
	return io.ReadAll(io.LimitReader(f, 1<<16)) // a secret file is a line or a PEM block
}

// Remove removes dir/name if holds says it is this process's: another Core sharing the
// directory may have written its own since.
func Remove(dir, name string, holds func([]byte) bool) {
	data, err := Read(dir, name)
	if err != nil || !holds(data) {
		return
	}
	if root, err := os.OpenRoot(dir); err == nil {
		root.Remove(name)
		root.Close()
	}
}
