package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/kaoruisaac/pedelec/schema"
)

// functionNameRule is what chat-completions servers accept as a function
// name, ^[a-zA-Z0-9_-]{1,64}$. A Pedelec tool name may hold a dot and may
// be longer. It is checked by hand: as a regexp, the {1,64} repetition
// compiled into 64 states in every process's init, tool-call's included.
var functionNameRule functionName

type functionName struct{}

func (functionName) MatchString(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

const maxFunctionName = 64

// toolNames maps a session's tool names to function names and back. The
// mapping is injective (two tools never share a function name), the same for
// the same set of tools on every turn, and reversed by table lookup, never by
// undoing a transformation.
type toolNames struct {
	toFunction map[string]string
	toTool     map[string]string
}

// newToolNames builds the table. A tool name that already follows the
// function-name rule is kept as it is, so the common case reads the same on
// both sides; the others get their invalid characters replaced by "_", and a
// short hash of the original name when that is too long or already taken.
func newToolNames(tools []schema.Tool) toolNames {
	n := toolNames{toFunction: map[string]string{}, toTool: map[string]string{}}
	var renamed []string
	for _, t := range tools {
		if _, dup := n.toFunction[t.Name]; dup {
			continue
		}
		if functionNameRule.MatchString(t.Name) {
			n.add(t.Name, t.Name)
			continue
		}
		renamed = append(renamed, t.Name)
	}
	// Sorted so the result does not depend on the manifest's order.
	sort.Strings(renamed)
	for _, name := range renamed {
		if _, dup := n.toFunction[name]; dup {
			continue
		}
		fn := sanitizeFunctionName(name)
		if len(fn) > maxFunctionName || n.taken(fn) {
			fn = hashedFunctionName(name, 0)
			for i := 1; n.taken(fn); i++ {
				fn = hashedFunctionName(name, i)
			}
		}
		n.add(name, fn)
	}
	return n
}

func (n toolNames) add(tool, fn string) {
	n.toFunction[tool] = fn
	n.toTool[fn] = tool
}

func (n toolNames) taken(fn string) bool {
	_, ok := n.toTool[fn]
	return ok
}

// function is the function name the model sees for a tool.
func (n toolNames) function(tool string) string {
	if fn, ok := n.toFunction[tool]; ok {
		return fn
	}
	return tool
}

// tool is the Pedelec tool a function name stands for. A name the model
// made up is passed through unchanged, so the broker answers it with
// TOOL_NOT_FOUND exactly as it would answer the CLI.
func (n toolNames) tool(fn string) string {
	if t, ok := n.toTool[fn]; ok {
		return t
	}
	return fn
}

func sanitizeFunctionName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
}

// hashedFunctionName keeps a readable prefix and adds 8 hex digits of a hash
// of the original name (and a counter, in the unlikely case of a clash).
func hashedFunctionName(name string, attempt int) string {
	seed := name
	if attempt > 0 {
		seed = fmt.Sprintf("%s#%d", name, attempt)
	}
	sum := sha256.Sum256([]byte(seed))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	prefix := sanitizeFunctionName(name)
	if max := maxFunctionName - len(suffix); len(prefix) > max {
		prefix = prefix[:max]
	}
	return prefix + suffix
}
