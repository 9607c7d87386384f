package schema

import (
	"fmt"
	"strings"
	"testing"
)

// A schema whose array items must match one of 200 forms, and a value
// with an item per two bytes that matches none: each item's violation
// listed every form and why it failed (24 KB), so 40 KB of a page's result
// made 488 MB of messages (4.7 GB allocated, 20 s); a frame's 1 MiB would
// take Core's memory. The same holds for an agent's arguments. What is
// reported stays bounded: a capped number of violations, each of a
// bounded size.
func TestViolationsOfAOneOfBombAreBounded(t *testing.T) {
	var forms []string
	for i := 0; i < 200; i++ {
		forms = append(forms, fmt.Sprintf(`{"type":"object","properties":{"k%d":{"type":"string"}},"required":["k%d"]}`, i, i))
	}
	items := `{"type":"array","items":{"oneOf":[` + strings.Join(forms, ",") + `]}}`
	skills := `{"guidance":"g","tools":[{"name":"t","description":"d",
 "argsSchema":{"type":"object","properties":{"a":` + items + `},"required":[]},
 "outputSchema":{"type":"object","properties":{"a":` + items + `}}}]}`
	s, problems := ValidateSkills([]byte(skills))
	if len(problems) > 0 {
		t.Fatal(problems[0])
	}
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := r.Tool("t")
	value := []byte(`{"a":[` + strings.TrimSuffix(strings.Repeat("0,", 5000), ",") + `]}`)
	for name, v := range map[string][]Violation{"result": tool.ValidateResult(value), "arguments": tool.ValidateArgs(value)} {
		total := 0
		for _, x := range v {
			total += len(x.Message) + len(x.Expected) + len(x.Got) + len(x.Path)
		}
		if len(v) == 0 || len(v) > MaxViolations || total > 256<<10 {
			t.Errorf("%s: %d violations, %d bytes; want 1..%d violations within 256 KiB", name, len(v), total, MaxViolations)
		}
	}
}
