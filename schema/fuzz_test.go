package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidateSkills looks for panics and for problems without a path or a
// message, seeded with every definition case.
func FuzzValidateSkills(f *testing.F) {
	files, _ := filepath.Glob("testdata/definitions/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		skills, problems := ValidateSkills(data)
		for _, p := range problems {
			if p.Path == "" || p.Message == "" {
				t.Fatalf("problem without path or message: %+v", p)
			}
		}
		if len(problems) == 0 {
			if _, err := NewRegistry(skills); err != nil {
				t.Fatalf("accepted skills do not compile: %v", err)
			}
		}
		_, _, _ = ParseManifest(string(data))
	})
}

// FuzzValidateArgs looks for panics in the argument check, against a schema
// that uses every keyword.
func FuzzValidateArgs(f *testing.F) {
	files, _ := filepath.Glob("testdata/args/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"s":"a","n":1,"i":2,"b":true,"a":["x","x"],"o":{},"u":1.5,"tu":{"a":"1","b":"2"}}`))
	schemaText, err := os.ReadFile("testdata/args/every_keyword_valid.json")
	if err != nil {
		f.Fatal(err)
	}
	root, err := parseJSON(schemaText)
	if err != nil {
		f.Fatal(err)
	}
	argsSchema, _ := root.get("argsSchema")
	tool := mustCompile(f, compact(argsSchema))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range tool.ValidateArgs(data) {
			if v.Path == "" || v.Message == "" {
				t.Fatalf("violation without path or message: %+v", v)
			}
		}
	})
}
