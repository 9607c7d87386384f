package e2e

import (
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// TestMain removes the pedelec binary testenv built once the tests are done.
func TestMain(m *testing.M) { testenv.Main(m) }
