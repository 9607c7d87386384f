package schema

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
)

// JSON Schema patterns are ECMA-262 regular expressions; Go's regexp is RE2.
// Pedelec runs patterns with RE2 on purpose: matching is linear in the
// input, so an agent's argument can never make a pattern backtrack for
// minutes. The common syntax is the same. compilePattern bridges the one
// frequent spelling difference (\uXXXX and \u{X...} escapes become \x{...})
// and refuses what RE2 cannot do (lookaround, backreferences) with a
// message that says so. Remaining differences, documented in docs/schema.md:
// \s and . are ASCII-minded in RE2 (\s is [\t\n\f\r ], . excludes only \n).

var (
	errLookaround = errors.New(`lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported because patterns run on RE2, which matches in linear time; rewrite the pattern without them, or check the rule in the handler`)
	errBackref    = errors.New(`backreferences (\1, \k<name>) are not supported because patterns run on RE2, which matches in linear time; rewrite the pattern without them, or check the rule in the handler`)
	errSyntax     = errors.New(`check its syntax (patterns are JavaScript regular expressions without lookaround or backreferences, run on RE2)`)
)

// Compiled on first use, not at package init: every pedelec process
// (tool-call included) paid for them, and few ever check a pattern.
var (
	unicodeEscape = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\\u([0-9a-fA-F]{4})|\\u\{([0-9a-fA-F]{1,6})\})`)
	})
	backref = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\[1-9]|\\k<`) })
)

// A pattern's size once compiled is bounded. RE2's time is linear in the
// input, but its matcher keeps capture slots per thread, and threads per
// instruction: "(a)" written 20,000 times (60 KB, within a schema's size
// limit) made each match of a 20,000-character string hold gigabytes (8
// such tools, one call each: 12.5 GB of heap kept, 79 s; the hostile
// review of 2026-12-02). A long repetition counts each repeat:
// ^.{0,1000}$ is about 2,000 instructions.
const (
	maxPatternGroups = 100
	maxPatternInsts  = 5000
)

var errPatternTooLarge = fmt.Errorf("it is too large: a pattern may have at most %d groups and compile to at most %d instructions (each repeat of a {n} counts); shorten it, or check the rule in the handler", maxPatternGroups, maxPatternInsts)

// checkPatternSize refuses a pattern RE2 would compile too large; one it
// cannot parse is left to regexp.Compile's error.
func checkPatternSize(pattern string) error {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	if re.MaxCap() > maxPatternGroups {
		return errPatternTooLarge
	}
	if prog, err := syntax.Compile(re.Simplify()); err == nil && len(prog.Inst) > maxPatternInsts {
		return errPatternTooLarge
	}
	return nil
}

// compilePattern compiles an ECMA-262 pattern with RE2 semantics.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	translated := translatePattern(pattern)
	if err := checkPatternSize(translated); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(translated)
	if err == nil {
		return re, nil
	}
	plain := strings.ReplaceAll(pattern, `\\`, "")
	switch {
	case strings.Contains(plain, "(?=") || strings.Contains(plain, "(?!") || strings.Contains(plain, "(?<=") || strings.Contains(plain, "(?<!"):
		return nil, errLookaround
	case backref().MatchString(plain):
		return nil, errBackref
	}
	return nil, errSyntax
}

// translatePattern rewrites ECMA escapes that RE2 spells differently. An
// escaped backslash (\\u0041 is a backslash then "u0041") is left alone. A
// surrogate pair of escapes (\uD83D\uDE00) is the one character it encodes:
// RE2 would read two surrogates, which no string holds.
func translatePattern(pattern string) string {
	if !strings.Contains(pattern, `\u`) {
		return pattern
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '\\' || i+1 >= len(pattern) {
			b.WriteByte(pattern[i])
			continue
		}
		if loc := unicodeEscape().FindStringSubmatchIndex(pattern[i:]); loc != nil && loc[0] == 0 {
			hex := ""
			if loc[2] >= 0 {
				hex = pattern[i+loc[2] : i+loc[3]]
			} else {
				hex = pattern[i+loc[4] : i+loc[5]]
			}
			i += loc[1] - 1
			if low, n := lowSurrogateAfter(hex, pattern[i+1:]); loc[2] >= 0 && n > 0 {
				hex = strconv.FormatInt(int64(low), 16)
				i += n
			}
			b.WriteString(`\x{` + hex + `}`)
			continue
		}
		b.WriteString(pattern[i : i+2])
		i++
	}
	return b.String()
}

// lowSurrogateAfter reads, when high is a high surrogate's hex and rest
// starts with a low surrogate's \uXXXX, the character the pair encodes and
// the length of that escape. Only \uXXXX escapes pair up, as in ECMA-262:
// \u{D83D} is a lone surrogate.
func lowSurrogateAfter(high, rest string) (rune, int) {
	h, err := strconv.ParseUint(high, 16, 32)
	if err != nil || h < 0xD800 || h >= 0xDC00 || len(rest) < 6 || rest[:2] != `\u` {
		return 0, 0
	}
	l, err := strconv.ParseUint(rest[2:6], 16, 32)
	if err != nil || l < 0xDC00 || l > 0xDFFF {
		return 0, 0
	}
	return utf16.DecodeRune(rune(h), rune(l)), 6
}
