package schema

import (
	"errors"
	"testing"
)

func TestPathNotation(t *testing.T) {
	p := path("").key("tools").index(1).key("argsSchema").key("properties").key("first name").key("$x").key("9a").key("")
	want := `tools[1].argsSchema.properties["first name"].$x["9a"][""]`
	if p.String() != want {
		t.Errorf("got %s, want %s", p, want)
	}
	if path("").String() != RootPath {
		t.Errorf("the empty path prints as %q", path("").String())
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	for _, tc := range []struct {
		in        string
		line, col int
	}{
		{"{\n  \"a\": tru\n}", 2, 8},
		{"[1,\n\"日本\", x]", 2, 7},
		{"\ufeff{]", 1, 2},
		{`{"a": "b\q"}`, 1, 9},
		{"\"a\nb\"", 1, 3},
		{"01", 1, 2},
	} {
		_, err := parseJSON([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || se.Column != tc.col {
			t.Errorf("%q: got %v, want line %d column %d", tc.in, err, tc.line, tc.col)
		}
	}
}

func TestParseKeepsOrderAndLastDuplicate(t *testing.T) {
	v, err := parseJSON([]byte(`{"b": 1, "a": 2, "b": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.obj) != 2 || v.obj[0].key != "b" || v.obj[0].val.s != "3" || len(v.dups) != 1 {
		t.Errorf("got %+v", v)
	}
}

func TestTranslatePattern(t *testing.T) {
	for in, want := range map[string]string{
		`^\u0041$`:         `^\x{0041}$`,
		`\u{1F600}`:        `\x{1F600}`,
		`\\u0041`:          `\\u0041`,
		`[a-z]+`:           `[a-z]+`,
		`\d\u00e9\\\u0041`: `\d\x{00e9}\\\x{0041}`,
		`\uD83D\uDE00`:     `\x{1f600}`,
		`\uD83D\uD83D`:     `\x{D83D}\x{D83D}`,
		`\uDE00\uD83D`:     `\x{DE00}\x{D83D}`,
		`\u{D83D}\uDE00`:   `\x{D83D}\x{DE00}`,
		`\uD83D\u{DE00}`:   `\x{D83D}\x{DE00}`,
		`\uD83D`:           `\x{D83D}`,
	} {
		if got := translatePattern(in); got != want {
			t.Errorf("translatePattern(%q) = %q, want %q", in, got, want)
		}
	}
	re, err := compilePattern(`^caf\u00e9$`)
	if err != nil || !re.MatchString("café") {
		t.Errorf("the translated pattern does not match: %v", err)
	}
}
