package schema

import (
	"errors"
	"regexp"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Patterns of an inputSchema run on RE2 whenever RE2 can run them, as the
// subset's do: matching is linear in the argument. A pattern RE2 refuses
// for its lookaround or backreferences is still a pattern the standard
// allows, and generators write them (Zod 4's e-mail pattern starts with
// lookaheads), so it runs on regexp2's ECMAScript mode, a backtracking
// engine, with a time limit on each match: an argument that makes it
// backtrack past the limit does not match.

// patternMatchLimit bounds one backtracking match.
const patternMatchLimit = time.Second

// standardRegexp is a compiled pattern; src is the pattern as written,
// which messages quote.
type standardRegexp struct {
	src string
	re2 *regexp.Regexp
	bt  *regexp2.Regexp
}

func (r *standardRegexp) String() string { return r.src }

func (r *standardRegexp) MatchString(s string) bool {
	if r.re2 != nil {
		return r.re2.MatchString(s)
	}
	ok, err := r.bt.MatchString(s)
	return ok && err == nil
}

// compileStandardPattern is the validator's regexp engine.
func compileStandardPattern(src string) (jsonschema.Regexp, error) {
	if re, err := compilePattern(src); err == nil {
		return &standardRegexp{src: src, re2: re}, nil
	} else if !errors.Is(err, errLookaround) && !errors.Is(err, errBackref) {
		return nil, errors.New("check its syntax (patterns are JavaScript regular expressions)")
	}
	bt, err := regexp2.Compile(src, regexp2.ECMAScript)
	if err != nil {
		return nil, errors.New("check its syntax (patterns are JavaScript regular expressions): " + err.Error())
	}
	bt.MatchTimeout = patternMatchLimit
	return &standardRegexp{src: src, bt: bt}, nil
}
