package schema

import "strconv"

// RootPath names the whole value in a Problem or Violation path: the skills
// object for definitions, the arguments object for a call. An empty string
// would print as ": message", which reads like a bug.
const RootPath = "(root)"

// path is a JSON path in the JavaScript notation people and models already
// read: tools[1].argsSchema.properties.delta, card["first name"], labels[2].
// Built by appending, so a child never changes its parent's path.
type path string

// isIdentifier reports whether k can follow a dot: ^[A-Za-z_$][A-Za-z0-9_$]*$.
func isIdentifier(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func (p path) key(k string) path {
	if isIdentifier(k) {
		if p == "" {
			return path(k)
		}
		return p + "." + path(k)
	}
	return p + "[" + path(quoteJSON(k)) + "]"
}

func (p path) index(i int) path { return p + "[" + path(strconv.Itoa(i)) + "]" }

func (p path) String() string {
	if p == "" {
		return RootPath
	}
	return string(p)
}
