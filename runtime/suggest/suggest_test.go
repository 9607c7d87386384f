package suggest

import "testing"

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"default_modle", []string{"executable", "args", "default_model", "base_url"}, "default_model"},
		{"executabl", []string{"executable", "args"}, "executable"},
		{"add_tood", []string{"add_todo", "list_todos"}, "add_todo"},
		{"Add_Todo", []string{"add_todo"}, "add_todo"},
		{"ls", []string{"rm"}, ""},
		{"weather", []string{"add_todo", "reset_counter"}, ""},
		{"add_todo", []string{"add_todo"}, ""}, // the name itself is no suggestion
		{"", []string{"a"}, ""},
		{"x", nil, ""},
	} {
		if got := Closest(tc.word, tc.candidates); got != tc.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", tc.word, tc.candidates, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"modle", "model", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1},
	} {
		if got := distance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
