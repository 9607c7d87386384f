package schema

import (
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Patterns of an inputSchema run on RE2 whenever RE2 can run them, as the
// subset's do: matching is linear in the argument. A pattern RE2 refuses
// for its lookaround or backreferences is still a pattern the standard
// allows, and generators write them (Zod 4's e-mail pattern starts with
// lookaheads), so it runs on regexp2's ECMAScript mode, a backtracking
// engine, with a time limit on all its matches in one check: an array of
// strings built to make it backtrack once cost the limit once per string
// (12 strings, 12 s; a 256 KiB call, over an hour), so the limit is the
// check's, not the match's. Past it, the rest is not matched and the check
// fails (patternBudget.cut), whatever the schema says of a match that fails:
// under "not", a match the limit cut would otherwise pass.

// patternCheckLimit bounds the backtracking matches of one check together.
const patternCheckLimit = time.Second

// patternBudget is one compiled schema's time for backtracking matches.
// A check of a schema that has such a pattern holds mu throughout (checks
// of that schema wait their turn; a regexp2.Regexp's MatchTimeout is its
// own field) and sets deadline; cut records that the deadline stopped a
// match.
type patternBudget struct {
	backtracks bool // the schema has a pattern that runs on regexp2; set at compile time
	// sealed: compiled. The engine runs during checks too (format
	// "regex" compiles the value), and those patterns are never matched.
	sealed   bool
	mu       sync.Mutex
	deadline time.Time
	cut      bool
}

// begin starts one check under b, if b has a backtracking pattern; end
// ends it and reports whether the deadline cut a match.
func (b *patternBudget) begin() (end func() (cut bool)) {
	if b == nil || !b.backtracks {
		return func() bool { return false }
	}
	b.mu.Lock()
	b.deadline, b.cut = time.Now().Add(patternCheckLimit), false
	return func() bool {
		cut := b.cut
		b.deadline, b.cut = time.Time{}, false
		b.mu.Unlock()
		return cut
	}
}

// standardRegexp is a compiled pattern; src is the pattern as written,
// which messages quote.
type standardRegexp struct {
	src    string
	re2    *regexp.Regexp
	bt     *regexp2.Regexp
	budget *patternBudget // nil: compiled only to check a definition
}

func (r *standardRegexp) String() string { return r.src }

func (r *standardRegexp) MatchString(s string) bool {
	if r.re2 != nil {
		return r.re2.MatchString(s)
	}
	b := r.budget
	if b == nil || b.deadline.IsZero() {
		ok, err := r.bt.MatchString(s)
		return ok && err == nil
	}
	left := time.Until(b.deadline)
	if left <= 0 {
		b.cut = true
		return false
	}
	r.bt.MatchTimeout = left
	ok, err := r.bt.MatchString(s)
	if err != nil {
		b.cut = true
	}
	return ok && err == nil
}

// patternEngine is the validator's regexp engine for a schema whose
// backtracking matches share budget (nil: a definition check).
func patternEngine(budget *patternBudget) func(string) (jsonschema.Regexp, error) {
	return func(src string) (jsonschema.Regexp, error) {
		re, err := compileStandardPattern(src)
		if err == nil && re.bt != nil && budget != nil && !budget.sealed {
			re.budget, budget.backtracks = budget, true
		}
		if err != nil {
			return nil, err
		}
		return re, nil
	}
}

// compileStandardPattern compiles one pattern, on RE2 when RE2 runs it.
func compileStandardPattern(src string) (*standardRegexp, error) {
	if re, err := compilePattern(src); err == nil {
		return &standardRegexp{src: src, re2: re}, nil
	} else if errors.Is(err, errPatternTooLarge) {
		return nil, err
	} else if !errors.Is(err, errLookaround) && !errors.Is(err, errBackref) {
		return nil, errors.New("check its syntax (patterns are JavaScript regular expressions)")
	}
	bt, err := regexp2.Compile(src, regexp2.ECMAScript)
	if err != nil {
		return nil, errors.New("check its syntax (patterns are JavaScript regular expressions): " + err.Error())
	}
	if len(bt.GetGroupNumbers())-1 > maxPatternGroups {
		return nil, errPatternTooLarge
	}
	bt.MatchTimeout = patternCheckLimit
	return &standardRegexp{src: src, bt: bt}, nil
}
