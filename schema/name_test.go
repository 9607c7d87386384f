package schema

import (
	"regexp"
	"slices"
	"testing"
)

// validName is the documented name pattern, checked by hand.
func TestValidNameIsThePattern(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_.-]*$`)
	for _, name := range []string{
		"", "a", "Z", "update_counter", "board.card-1_x", "1abc", "_a", ".a", "-a", "a b", "a$", "café", "é",
		"a\x00", "a\n", "a\xff", "ab/", "A9", "a:b", "a\u0131", "\u212a", // U+212A folds to K in some matchers
	} {
		if got, want := validName(name), re.MatchString(name); got != want {
			t.Errorf("validName(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}

// A pattern is compiled once per check, but every schema that uses a bad
// one is still told so.
func TestRepeatedBadPatternReportedAtEachUse(t *testing.T) {
	tool := func(name string) string {
		return `{"name": "` + name + `", "description": "D.", "argsSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "(?=x)"}}, "required": []}}`
	}
	_, problems := ValidateSkills([]byte(`{"guidance": "", "tools": [` + tool("a") + `,` + tool("b") + `]}`))
	if len(problems) != 2 || problems[0].Path != "tools[0].argsSchema.properties.s.pattern" || problems[1].Path != "tools[1].argsSchema.properties.s.pattern" ||
		problems[0].Message != problems[1].Message {
		t.Errorf("got %+v", problems)
	}
}

// keywordTypes is typeKeywords inverted, and the keyword sets the checker
// asks in turn are disjoint, so the order it asks them in does not matter.
func TestKeywordTypes(t *testing.T) {
	want := map[string][]string{}
	for _, typ := range nodeTypes {
		for _, k := range typeKeywords[typ] {
			want[k] = append(want[k], typ)
		}
	}
	for k, types := range want {
		if got := keywordTypes(k); !slices.Equal(got, types) {
			t.Errorf("keywordTypes(%q) = %v, want %v", k, got, types)
		}
	}
	for _, k := range anyNodeKeywords {
		if keywordTypes(k) != nil || unsupported[k] != "" {
			t.Errorf("%q is in more than one keyword set", k)
		}
	}
	for k := range unsupported {
		if keywordTypes(k) != nil {
			t.Errorf("%q is both unsupported and a type's keyword", k)
		}
	}
}
