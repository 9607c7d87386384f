package page

import (
	"strings"
	"testing"
)

func TestRequestIDRecovered(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for frame, want := range map[string]int64{
		`{"id":5,"params":` + deep + `}`:      5,
		`{"params":` + deep + `,"id":6}`:      6,
		`{"type":"request","id":"x"}`:         0,
		`[1,2]`:                               0,
		`{"id":7,"method":"m","params":{"x":`: 7,
	} {
		if got := requestID([]byte(frame)); got != want {
			t.Errorf("requestID(%.40q) = %d, want %d", frame, got, want)
		}
	}
}
