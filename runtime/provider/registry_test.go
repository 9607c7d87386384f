package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The order of list_providers and of the default is what it was when it
// was a hand-kept list (registering in each provider's file changed
// nothing), with the ACP-only agents (issue 25) after the others and
// before script, which stays the last resort.
func TestRegisteredOrder(t *testing.T) {
	var names []string
	for _, s := range Specs() {
		names = append(names, s.Name)
		if p := s.New(Settings{}); p.Name() != s.Name {
			t.Errorf("%s: New builds a provider named %q", s.Name, p.Name())
		}
	}
	if got := strings.Join(names, " "); got != "codex claude gemini opencode copilot openai ollama qwen claude-acp codex-acp script mcp cursor antigravity" {
		t.Errorf("registered: %s", got)
	}
	if got := strings.Join(DefaultOrder(), " "); got != "codex claude gemini opencode copilot openai ollama qwen claude-acp codex-acp script" {
		t.Errorf("default order: %s", got)
	}
	for _, name := range OriginalOnly {
		if !slices.Contains(names, name) {
			t.Errorf("the original Pedelec's %s is not registered", name)
		}
	}
}

// Adding a provider is its own file: its name is written in one file of
// this package only, the one that registers it. (not_built.go names the
// original Pedelec's providers, a list fixed by compatibility that a new
// provider never joins.) The settings file and the SDK's list are checked
// where they live: runtime/config's TestNoProviderNamed and gencodes'
// TestGeneratedFilesAreFresh.
func TestProviderNamedOnlyInItsFile(t *testing.T) {
	registered := map[string]bool{}
	for _, s := range Specs() {
		registered[s.Name] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	namedIn := map[string][]string{} // provider name -> files naming it
	registers := map[string]bool{}   // file -> it calls Register
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || file == "not_built.go" {
			continue
		}
		lits, calls := parseFile(t, file)
		registers[file] = calls
		for _, lit := range lits {
			if registered[lit] && !slices.Contains(namedIn[lit], file) {
				namedIn[lit] = append(namedIn[lit], file)
			}
		}
	}
	for name := range registered {
		switch files := namedIn[name]; {
		case len(files) > 1:
			t.Errorf("provider %q is named in %s: only the file that registers it may name it", name, strings.Join(files, ", "))
		case len(files) == 1 && !registers[files[0]]:
			t.Errorf("provider %q is named in %s, which registers no provider", name, files[0])
		}
	}
}

// parseFile returns a Go file's string constants (not its comments) and
// whether it calls Register.
func parseFile(t *testing.T, file string) (lits []string, registers bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if v, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
				lits = append(lits, v)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "Register" {
				registers = true
			}
		}
		return true
	})
	return lits, registers
}

// A second provider with a taken name or rank is refused at start-up.
func TestRegisterRefusesClashes(t *testing.T) {
	saved := specs
	t.Cleanup(func() { specs = saved })
	for _, s := range []Spec{
		{Name: "codex", Title: "Another", Rank: 999, New: NewCodex},
		{Name: "another", Title: "Another", Rank: 10, New: NewCodex},
		{Name: "another", Title: "", Rank: 999, New: NewCodex},
		{Name: "another", Title: "Another", Rank: 999},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", s)
				}
			}()
			Register(s)
		}()
	}
}
