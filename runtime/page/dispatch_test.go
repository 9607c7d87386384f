package page

import (
	"slices"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The dispatch table answers exactly the methods runtime/wire's table
// lists: the origin gate's three before it, every other in it.
func TestDispatchTableIsTheProtocolsMethods(t *testing.T) {
	gate := []string{wire.MethodGetApprovalStatus, wire.MethodRequestApproval, wire.MethodAwaitApproval}
	var want []string
	for _, m := range wire.PageMethods {
		if !slices.Contains(gate, m.Name) {
			want = append(want, m.Name)
		}
		if _, ok := methods[m.Name]; ok && slices.Contains(gate, m.Name) {
			t.Errorf("%s is the origin gate's, and in the dispatch table too", m.Name)
		}
	}
	slices.Sort(want)
	if got := knownMethods(); !slices.Equal(got, want) {
		t.Errorf("dispatch table = %v\nwire.PageMethods = %v", got, want)
	}
}
