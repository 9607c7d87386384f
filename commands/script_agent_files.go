package commands

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// runFileVerb gives the script agent what every real agent has: a shell
// that writes files in its working directory (the session's work
// directory, where assets/ is). Unlike a real agent's shell it acts there
// only, because any page an allowed origin serves can send it lines: paths
// are checked as text first (scriptPath) so a refusal names the reason,
// then every operation goes through work, an os.Root, so a symlink planted
// by any means (an earlier line, another process) cannot lead out either.
func runFileVerb(work *os.Root, verb, rest string) string {
	first, second, _ := strings.Cut(rest, " ")
	if verb == "ls" && first == "" {
		first = "."
	}
	if verb != "symlink" {
		if why := scriptPath(first, verb == "ls"); why != "" {
			return refusal(verb, first, why)
		}
	}
	var err error
	switch verb {
	case "write":
		if err = work.MkdirAll(filepath.Dir(first), 0o755); err == nil {
			err = work.WriteFile(first, []byte(second), 0o644)
		}
	case "mkdir":
		err = work.MkdirAll(first, 0o755)
	case "symlink":
		link := strings.TrimSpace(second)
		if why := scriptPath(link, false); why != "" {
			return refusal(verb, link, why)
		}
		if why := symlinkTarget(first); why != "" {
			return refusal(verb, first, why)
		}
		err = work.Symlink(first, link)
	case "rm":
		err = work.RemoveAll(first)
	case "ls":
		var names []string
		if names, err = listNames(work, first); err == nil {
			if len(names) == 0 {
				// An empty answer was a blank line in the chat.
				return "ls: " + cmp.Or(first, ".") + " is empty"
			}
			return strings.Join(names, " ")
		}
	}
	if isEscape(err) {
		return refusal(verb, first, "it leads outside the session's work directory through a symlink")
	}
	if err != nil {
		return verb + " failed: " + err.Error()
	}
	return verb + " ok: " + first
}

// scriptPath says why p may not be named by a file verb, "" if it may:
// only relative paths that stay in the work directory as written. mayBeDot
// lets ls name the work directory itself; write, mkdir, rm and a link's own
// name must name something in it.
func scriptPath(p string, mayBeDot bool) string {
	switch {
	case p == "":
		return "no path given"
	case strings.ContainsRune(p, 0):
		return "it contains a NUL byte"
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "":
		return "it is an absolute path; name files relative to the session's work directory"
	case hasDotDot(p):
		return "it has a .. segment; the script agent acts only inside the session's work directory"
	case !mayBeDot && filepath.Clean(p) == ".":
		return "it names the session's work directory itself"
	case !filepath.IsLocal(p):
		return "it is not a local path (a name the system reserves)"
	}
	return ""
}

// symlinkTarget says why a link may not point to target, "" if it may. A
// relative target without .. names something in the link's own directory
// or below, wherever that directory is or is later moved to, so no link
// the script agent makes points outside the work directory.
func symlinkTarget(target string) string {
	if why := scriptPath(target, true); why != "" {
		return "the link's target: " + why
	}
	return ""
}

func hasDotDot(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// isEscape reports whether err is os.Root refusing a path that resolves
// outside it. The os package does not export that error, only its text,
// at the end of the chain of path errors it wraps it in.
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if errors.Unwrap(err) == nil {
			return err.Error() == "path escapes from parent"
		}
	}
	return false
}

func refusal(verb, p, why string) string {
	return fmt.Sprintf("%s refused: %q: %s", verb, p, why)
}

func listNames(work *os.Root, dir string) ([]string, error) {
	d, err := work.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	sort.Strings(names)
	return names, nil
}
