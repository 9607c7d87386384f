package assets

import (
	"errors"
	"io/fs"
)

// Usage is the bytes of the regular files under the session's assets
// directory, uploads and result files alike. It never follows a link
// (fs.WalkDir over an os.Root of the directory, which refuses links out
// of it, and counts only regular files); a missing directory uses nothing.
func (a Dir) Usage() (int64, error) {
	root, err := a.openAssetsRoot(false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer root.Close()
	var total int64
	err = fs.WalkDir(root.FS(), ".", func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile, or unreadable: not counted
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total, err
}
