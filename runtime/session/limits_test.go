package session

import "testing"

func TestJSONDepth(t *testing.T) {
	for in, want := range map[string]int{
		`{}`: 1, `{"a":{"b":[1]}}`: 3, `{"a":"{{{[[["}`: 1, `{"a":"\"{"}`: 1, `"x"`: 0,
	} {
		if got := jsonDepth([]byte(in)); got != want {
			t.Errorf("jsonDepth(%s) = %d, want %d", in, got, want)
		}
	}
}
