package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// RemoveTree removes dir and everything in it, holding a few descriptors
// whatever the tree's depth. An agent makes the tree, and a page's script
// agent alone can make it half a million levels deep with one message;
// os.RemoveAll holds a descriptor per level, so it ran Core out of them
// and failed. Here each directory is emptied at the top: its files are
// removed and its subdirectories moved up beside it, so no directory is
// entered deeper than one level. Links are removed, never followed, and
// every step goes through an os.Root, so nothing outside dir is touched.
func RemoveTree(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return os.Remove(dir) // a link is removed, never followed
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	moved := 0
	err = func() error {
		defer r.Close()
		if now, err := r.Stat("."); err != nil || !os.SameFile(fi, now) {
			return fmt.Errorf("%s was replaced while it was being removed", dir)
		}
		for {
			names, err := readNames(r, ".")
			if err != nil || len(names) == 0 {
				return err
			}
			for _, name := range names {
				if r.Remove(name) == nil {
					continue // a file, a link, an empty directory
				}
				if err := emptyIntoTop(r, name, &moved); err != nil {
					return err
				}
				if err := r.Remove(name); err != nil {
					return err
				}
			}
		}
	}()
	if err != nil {
		return err
	}
	return os.Remove(dir)
}

// emptyIntoTop removes the files of r's directory name and moves its
// subdirectories to r's top under fresh names, for RemoveTree's next pass.
func emptyIntoTop(r *os.Root, name string, moved *int) error {
	names, err := readNames(r, name)
	if err != nil {
		return err
	}
	for _, n := range names {
		child := name + "/" + n
		if r.Remove(child) == nil {
			continue
		}
		for {
			*moved++
			top := ".removing-" + strconv.Itoa(*moved)
			if _, err := r.Lstat(top); errors.Is(err, fs.ErrNotExist) {
				if err := r.Rename(child, top); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// readNames lists the names in r's directory name, without following a
// link at name.
func readNames(r *os.Root, name string) ([]string, error) {
	if fi, err := r.Lstat(name); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, nil
	}
	d, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return names, err
}
