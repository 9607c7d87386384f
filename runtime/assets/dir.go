// Package assets is session assets: the files the page and the agent
// share, in <work>/assets/, listed over the page's WebSocket and moved over
// plain HTTP with single-use tickets (transfer.go, tickets.go). It knows
// Core only through the Host interface, which the root runtime package
// implements; it never imports that package.
//
// The page names assets by public paths ("/results/a.json") rooted in
// that directory. Every rule that keeps a public path inside it is in this
// file:
//
//   - a path is checked as text first (assetSegments): it starts with "/",
//     uses "/", and has no empty, ".", ".." (also percent-encoded) or
//     ".pedelec-" segment;
//   - it holds no control or bidirectional formatting character
//     (unsafeRune), so a name shows what it is;
//   - it is then walked one segment at a time from the session directory
//     through an os.Root (which refuses to leave the directory whatever the
//     file system holds), Lstat-ing each segment and refusing symlinks, and
//     checking that what was opened is the very file that was Lstat-ed, so
//     a symlink swapped in between cannot redirect the walk either.
//
// The agent runs as the same user and can plant symlinks and hard links
// anywhere in its work directory; these rules (and checkSingleLink) are
// what stops the page from reading /etc/passwd through one.
package assets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// MaxBytes is the limit of one upload and of one read: 100 MiB.
const MaxBytes int64 = 100 << 20

// maxListedAssets bounds one listing, so a runaway agent cannot make Core
// build an unbounded answer.
const maxListedAssets = 10000

// hiddenPrefix marks Core's own files (partial uploads); they are never
// listed, read or written by public path.
const hiddenPrefix = ".pedelec-"

// DirName is the shared directory inside the work directory, which Core
// makes with the session's other directories.
const DirName = "assets"

func assetErr(code wire.Code, p, format string, args ...any) *wire.Error {
	return wire.Errorf(code, format, args...).WithDetails(map[string]any{"path": p})
}

// assetSegments checks a public path as text and returns its segments.
func assetSegments(p string) ([]string, error) {
	invalid := func(why string) error {
		return assetErr(wire.CodeAssetPathInvalid, p, "asset path %q is invalid: %s", p, why)
	}
	switch {
	case p == "":
		return nil, invalid("it is empty; use a path like /report.json")
	case len(p) > 4096:
		return nil, invalid("it is longer than 4096 bytes")
	case !utf8.ValidString(p):
		return nil, invalid("it is not valid UTF-8")
	case !strings.HasPrefix(p, "/"):
		return nil, invalid("it must start with / (the assets directory is its root)")
	case strings.ContainsRune(p, '\\'):
		return nil, invalid("it contains a backslash; separate segments with /")
	}
	if at, r, kind := unsafeRune(p); at >= 0 {
		return nil, wire.Errorf(wire.CodeAssetPathInvalid, "asset path %q is invalid: it contains %U at byte %d (%s); names may not hold control or bidirectional formatting characters", p, r, at, kind).
			WithDetails(map[string]any{"path": p, "character": fmt.Sprintf("%U", r), "offset": at})
	}
	segs := strings.Split(p[1:], "/")
	for _, s := range segs {
		decoded := strings.ToLower(strings.ReplaceAll(strings.ToLower(s), "%2e", "."))
		switch {
		case s == "":
			return nil, invalid("it has an empty segment (a double or trailing /)")
		case s == "." || s == "..":
			return nil, invalid("it has a " + s + " segment")
		case decoded == "." || decoded == "..":
			return nil, invalid("it has a percent-encoded " + decoded + " segment")
		case strings.HasPrefix(s, hiddenPrefix):
			return nil, invalid("segments starting with " + hiddenPrefix + " are reserved for Pedelec")
		case len(s) > 255:
			return nil, invalid("a segment is longer than 255 bytes")
		}
	}
	return segs, nil
}

// unsafeRune finds the first character a name must not hold, its byte
// offset and what it is; at is -1 when there is none. Control characters
// (a newline splits a log line or a listing) and bidirectional formatting
// characters (U+202E makes "evil\u202etxt.exe" display as "evilexe.txt")
// make a name show something other than what it is.
func unsafeRune(p string) (at int, r rune, kind string) {
	for i, r := range p {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return i, r, "a control character"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return i, r, "a bidirectional formatting character"
		}
	}
	return -1, 0, ""
}

// CheckPath checks a public path as text, as every asset method does
// before it looks at the session.
func CheckPath(p string) error {
	_, err := assetSegments(p)
	return err
}

// Dir is one session's view of its assets directory.
type Dir struct {
	sessionDir string // sessions/<name>, created by Core
}

// SessionDir is the assets of the session whose directory (holding
// work/assets/) is path.
func SessionDir(path string) Dir { return Dir{sessionDir: path} }

// openAssetsRoot opens <session>/work/assets without following a symlink
// at either step (the agent could replace assets/ with a link to /).
func (a Dir) openAssetsRoot(create bool) (*os.Root, error) {
	base, err := os.OpenRoot(a.sessionDir)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	work, err := enterDir(base, "work", false, "/")
	if err != nil {
		return nil, err
	}
	defer work.Close()
	return enterDir(work, DirName, create, "/")
}

// enterDir opens the directory name inside r, refusing symlinks and
// anything that is not a directory; with create it makes a missing one.
// pub is the public path being walked, for errors.
func enterDir(r *os.Root, name string, create bool, pub string) (*os.Root, error) {
	fi, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err = r.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = r.Lstat(name)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, assetErr(wire.CodeAssetNotFound, pub, "asset %s not found: directory %q does not exist", pub, name)
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, assetErr(wire.CodeAssetPathInvalid, pub, "asset path %s goes through a symlink (%q); symlinks are never followed", pub, name)
	}
	if !fi.IsDir() {
		return nil, assetErr(wire.CodeAssetNotFile, pub, "asset path %s goes through %q, which is not a directory", pub, name)
	}
	sub, err := r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if now, err := sub.Stat("."); err != nil || !os.SameFile(fi, now) {
		sub.Close()
		return nil, assetErr(wire.CodeAssetPathInvalid, pub, "asset path %s changed while it was opened (%q was replaced)", pub, name)
	}
	return sub, nil
}

// walkParents opens the directory holding the last segment.
func (a Dir) walkParents(pub string, segs []string, create bool) (*os.Root, error) {
	dir, err := a.openAssetsRoot(true)
	if err != nil {
		return nil, err
	}
	for _, s := range segs[:len(segs)-1] {
		next, err := enterDir(dir, s, create, pub)
		dir.Close()
		if err != nil {
			return nil, err
		}
		dir = next
	}
	return dir, nil
}

// openedAsset is a regular file opened for reading, with what the page
// learns about it.
type openedAsset struct {
	*os.File
	info wire.Asset
	mime string
}

// open opens the regular file at public path pub for reading.
func (a Dir) open(pub string) (*openedAsset, error) {
	segs, err := assetSegments(pub)
	if err != nil {
		return nil, err
	}
	dir, err := a.walkParents(pub, segs, false)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	name := segs[len(segs)-1]
	fi, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, assetErr(wire.CodeAssetNotFound, pub, "asset %s not found", pub)
	}
	if err != nil {
		return nil, err
	}
	if err := checkRegular(pub, fi); err != nil {
		return nil, err
	}
	// Non-blocking, so a FIFO swapped in after the Lstat cannot hang Core.
	f, err := dir.OpenFile(name, os.O_RDONLY|OpenNonBlock, 0)
	if err != nil {
		return nil, err
	}
	now, err := f.Stat()
	if err != nil || !os.SameFile(fi, now) || !now.Mode().IsRegular() {
		f.Close()
		return nil, assetErr(wire.CodeAssetNotFile, pub, "asset %s changed while it was opened; it is no longer the regular file it was", pub)
	}
	if err := checkSingleLink(pub, now); err != nil {
		f.Close()
		return nil, err
	}
	return &openedAsset{File: f, info: assetInfo(pub, now), mime: assetMIME(name)}, nil
}

// stat describes the regular file at pub without keeping it open.
func (a Dir) stat(pub string) (*openedAsset, error) {
	f, err := a.open(pub)
	if err != nil {
		return nil, err
	}
	f.Close()
	return f, nil
}

func checkRegular(pub string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return assetErr(wire.CodeAssetPathInvalid, pub, "asset %s is a symlink; symlinks are never followed", pub)
	case fi.IsDir():
		return assetErr(wire.CodeAssetNotFile, pub, "asset %s is a directory, not a file", pub)
	case !fi.Mode().IsRegular():
		return assetErr(wire.CodeAssetNotFile, pub, "asset %s is not a regular file (%s)", pub, fi.Mode().Type())
	}
	return nil
}

// checkSingleLink refuses a file with more than one name. Like a symlink,
// a hard link planted in assets/ can name a file outside it (core-token,
// /etc/shadow), and unlike one it looks like a plain file: only its link
// count tells. It is checked on the opened file, so what is read is what
// was checked. An upload to its name is allowed: the rename replaces the
// link and never writes through it.
func checkSingleLink(pub string, fi fs.FileInfo) error {
	if n := linkCount(fi); n > 1 {
		return assetErr(wire.CodeAssetPathInvalid, pub, "asset %s is a hard link (the file has %d names); hard links are never followed, since one can name a file outside assets/", pub, n)
	}
	return nil
}

func assetInfo(pub string, fi fs.FileInfo) wire.Asset {
	return wire.Asset{Name: path.Base(pub), Path: pub, SizeBytes: fi.Size(), ModifiedAt: fi.ModTime().UnixMilli()}
}

func assetMIME(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Write writes data to a new file at the public path pub, as an upload
// would (write): Core's own files in the assets, such as a tool result too
// large to hand the agent inline.
func (a Dir) Write(pub string, data []byte) (wire.Asset, error) {
	return a.write(pub, int64(len(data)), bytes.NewReader(data))
}

// write streams exactly size bytes from body into the file at pub. The
// bytes go to a hidden temporary name in the target directory, renamed
// over pub only when all of them arrived, so the agent never sees half a
// file. Missing parent directories are created; an existing regular file
// is replaced; anything else at pub is refused.
func (a Dir) write(pub string, size int64, body io.Reader) (wire.Asset, error) {
	segs, err := assetSegments(pub)
	if err != nil {
		return wire.Asset{}, err
	}
	dir, err := a.walkParents(pub, segs, true)
	if err != nil {
		return wire.Asset{}, err
	}
	defer dir.Close()
	name := segs[len(segs)-1]
	if err := checkReplaceable(dir, pub, name); err != nil {
		return wire.Asset{}, err
	}
	tmp := hiddenPrefix + "upload-" + ids.New("")
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return wire.Asset{}, err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	n, err := io.CopyBuffer(f, io.LimitReader(body, size+1), make([]byte, 256<<10))
	if err != nil {
		return wire.Asset{}, err
	}
	if n != size {
		return wire.Asset{}, wire.Errorf(wire.CodeAssetUploadSizeMismatch, "upload of %s sent %s bytes; the file is %d bytes", pub, atLeast(n, size), size).
			WithDetails(map[string]any{"path": pub, "expectedBytes": size, "receivedBytes": n})
	}
	if err := f.Close(); err != nil {
		return wire.Asset{}, err
	}
	if err := checkReplaceable(dir, pub, name); err != nil {
		return wire.Asset{}, err
	}
	if err := dir.Rename(tmp, name); err != nil {
		return wire.Asset{}, err
	}
	done = true
	fi, err := dir.Lstat(name)
	if err != nil {
		return wire.Asset{}, err
	}
	return assetInfo(pub, fi), nil
}

// checkReplaceable allows an upload to pub when nothing is there yet or a
// regular file is.
func checkReplaceable(dir *os.Root, pub, name string) error {
	fi, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return checkRegular(pub, fi)
}

func atLeast(n, size int64) string {
	if n > size {
		return "more than " + strconv.FormatInt(size, 10)
	}
	return strconv.FormatInt(n, 10)
}

// List answers list_assets: every file list finds (an empty list, never
// nil, when there is none), or the reason it could not.
func (a Dir) List() ([]wire.Asset, error) {
	list, err := a.list()
	if err != nil {
		return nil, failure(wire.CodeAssetListFailed, "", "list assets", err)
	}
	if list == nil {
		list = []wire.Asset{}
	}
	return list, nil
}

// list returns every regular file at every level, newest first, then by
// name (then path, so the order is total). Symlinks are neither listed nor
// followed, nor are files with more than one hard link; ".pedelec-" entries and everything under them are skipped.
func (a Dir) list() ([]wire.Asset, error) {
	root, err := a.openAssetsRoot(true)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []wire.Asset
	if err := listDir(root, "", &out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.ModifiedAt != y.ModifiedAt {
			return x.ModifiedAt > y.ModifiedAt
		}
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.Path < y.Path
	})
	return out, nil
}

func listDir(dir *os.Root, prefix string, out *[]wire.Asset) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, hiddenPrefix) {
			continue
		}
		pub := prefix + "/" + name
		if _, err := assetSegments(pub); err != nil {
			continue // a name no public path can address (a backslash, bad UTF-8)
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			continue
		case e.IsDir():
			sub, err := enterDir(dir, name, false, pub)
			if err != nil {
				continue // replaced or removed while listing: not there any more
			}
			err = listDir(sub, pub, out)
			sub.Close()
			if err != nil {
				return err
			}
		case e.Type().IsRegular():
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() || linkCount(fi) > 1 {
				continue
			}
			if len(*out) >= maxListedAssets {
				return wire.Errorf(wire.CodeAssetListFailed, "the assets directory holds more than %d files; listing stops there", maxListedAssets).
					WithDetails(map[string]any{"limit": maxListedAssets})
			}
			*out = append(*out, assetInfo(pub, fi))
		}
	}
	return nil
}
