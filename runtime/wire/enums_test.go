package wire

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The typed enums are the truth; docs/protocol.md and the SDK's TypeScript
// types must list exactly them, as TestErrorsDocMatchesCodes does for codes.
func TestEnumsMatchDocsAndSDK(t *testing.T) {
	protocol := readRepoFile(t, "docs/protocol.md")
	dts := readRepoFile(t, "sdk/dist/pedelec.d.ts")
	sdkWire := readRepoFile(t, "sdk/src/client/protocol.gen.ts")

	for _, tc := range []struct {
		name string
		want []string
		// where each source lists the values
		doc, sdk   string
		sdkSource  string
		docExclude string
	}{
		// Core's statuses are the SDK's detailed ones: the original's five
		// (PedelecSessionStatus) and waiting_approval (PedelecDetailedStatus).
		{"statuses", strs(Statuses), docLine(t, protocol, "Statuses: "), tsUnion(t, dts, "export type PedelecSessionStatus = ") + " | " + tsUnion(t, dts, "export type PedelecDetailedStatus = "), "sdk/dist/pedelec.d.ts", ""},
		{"settle outcomes", strs(SettleOutcomes), docLine(t, protocol, "| `tool_call_settled` |"), tsUnion(t, sdkWire, "export type SettleOutcome = "), "sdk/src/client/protocol.gen.ts", "tool_call_settled"},
		{"end reasons", strs(EndReasons), docLine(t, protocol, "| `ended` |"), tsUnion(t, dts, "export type EndReason = "), "sdk/dist/pedelec.d.ts", "ended"},
	} {
		doc := backticked(tc.doc, tc.docExclude)
		if !sameSet(doc, tc.want) {
			t.Errorf("%s: docs/protocol.md lists %v, runtime/wire has %v", tc.name, doc, tc.want)
		}
		sdk := quoted(tc.sdk)
		if !sameSet(sdk, tc.want) {
			t.Errorf("%s: %s lists %v, runtime/wire has %v", tc.name, tc.sdkSource, sdk, tc.want)
		}
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile("../../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// docLine is the line of text that starts with prefix.
func docLine(t *testing.T, text, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line starting with %q", prefix)
	return ""
}

// tsUnion is the rest of the line after prefix, up to its ';'.
func tsUnion(t *testing.T, text, prefix string) string {
	t.Helper()
	i := strings.Index(text, prefix)
	if i < 0 {
		t.Fatalf("no %q", prefix)
	}
	rest := text[i+len(prefix):]
	if j := strings.IndexAny(rest, ";\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var backtickWord = regexp.MustCompile("`([a-z_]+)`")
var quotedWord = regexp.MustCompile(`"([a-z_]+)"`)

func backticked(s, exclude string) []string {
	var out []string
	for _, m := range backtickWord.FindAllStringSubmatch(s, -1) {
		if m[1] != exclude {
			out = append(out, m[1])
		}
	}
	return out
}

func quoted(s string) []string {
	var out []string
	for _, m := range quotedWord.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), b) && len(a) == len(b)
}
