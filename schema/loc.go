package schema

import "strings"

// loc is a checker's position in a manifest, spelled out as a path only
// when a problem is reported there. The checker visits every member of
// every definition and reports at very few of them; building each path's
// string on the way down was a third of the allocations of checking a
// large manifest (docs/performance.md). A loc lives in its caller's stack
// frame and points at its parent's.
type loc struct {
	parent *loc
	key    string // the member's key, when index < 0
	index  int    // the array index, or -1 for a key; the root has no parent
}

// root is the skills object (or a bare manifest array) itself.
func root() loc { return loc{index: -1} }

func (l *loc) child(k string) loc { return loc{parent: l, key: k, index: -1} }

func (l *loc) at(i int) loc { return loc{parent: l, index: i} }

// path spells the location with path's notation.
func (l *loc) path() path {
	if l.parent == nil {
		return ""
	}
	p := l.parent.path()
	if l.index >= 0 {
		return p.index(l.index)
	}
	// A copy of the key, because path.key may return it as it is, and
	// escape analysis cannot tell a key from the loc holding it: without
	// the copy every loc would move to the heap.
	return p.key(strings.Clone(l.key))
}

func (l *loc) String() string { return l.path().String() }
