package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
)

var update = flag.Bool("update", false, "rewrite the expected frames of testdata/conformance")

// The conformance suite replays recorded conversations against a real
// serve: lines "> frame" are sent by the page, lines "< frame" are what Core
// must send back, in order. Ids and times are normalized (<s-1>, <tr-1>, 0)
// so the files are stable; placeholders in sent frames are mapped back to
// the real ids; "= sleep 1s" waits. `go test ./e2e -run Conformance -update` re-records them.
func TestConformance(t *testing.T) {
	files, _ := filepath.Glob("testdata/conformance/*.txt")
	if len(files) == 0 {
		t.Fatal("no conformance files")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) { runConformance(t, file) })
	}
}

func runConformance(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	srv := testenv.Serve(t, []string{"--tool-timeout", "2s"})
	p := wspage.Dial(t, srv.WSURL, "")
	n := newNormalizer()
	var out bytes.Buffer
	received := 0
	next := func(timeout time.Duration) (string, bool) {
		deadline := time.Now().Add(timeout)
		for time.Now().Before(deadline) {
			if frames := p.Frames(); len(frames) > received {
				received++
				return n.normalize(string(frames[received-1])), true
			}
			time.Sleep(5 * time.Millisecond)
		}
		return "", false
	}
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			if *update {
				drain(&out, next)
			}
			out.WriteString(line + "\n")
			if err := p.Send([]byte(n.denormalize(line[2:]))); err != nil {
				t.Fatalf("line %d: send: %v", i+1, err)
			}
		case strings.HasPrefix(line, "= sleep "):
			d, err := time.ParseDuration(strings.TrimPrefix(line, "= sleep "))
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if *update {
				drain(&out, next)
			}
			out.WriteString(line + "\n")
			time.Sleep(d)
		case strings.HasPrefix(line, "< "):
			if *update {
				continue
			}
			got, ok := next(10 * time.Second)
			if !ok {
				t.Fatalf("%s:%d: no frame arrived; want %s", file, i+1, line[2:])
			}
			if !sameJSON(got, line[2:]) {
				t.Fatalf("%s:%d: frame differs\n got %s\nwant %s", file, i+1, got, line[2:])
			}
		default:
			if line != "" || !*update {
				out.WriteString(line + "\n")
			}
		}
	}
	if *update {
		drain(&out, next)
		if err := os.WriteFile(file, bytes.TrimRight(out.Bytes(), "\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if extra, ok := next(300 * time.Millisecond); ok {
		t.Fatalf("%s: unexpected extra frame %s", file, extra)
	}
}

// drain records frames until Core has been quiet for a while.
func drain(out *bytes.Buffer, next func(time.Duration) (string, bool)) {
	for {
		f, ok := next(700 * time.Millisecond)
		if !ok {
			return
		}
		out.WriteString("< " + f + "\n")
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// normalizer maps random ids to stable placeholders and times to 0.
type normalizer struct {
	toName map[string]string
	toID   map[string]string
	count  map[string]int
}

var (
	idPattern   = regexp.MustCompile(`\b(s|t|tr|k)_[a-z2-7]{26}\b`)
	timePattern = regexp.MustCompile(`"(startedAt|deadline|turnStartedAt)":\d+`)
)

func newNormalizer() *normalizer {
	return &normalizer{toName: map[string]string{}, toID: map[string]string{}, count: map[string]int{}}
}

func (n *normalizer) normalize(frame string) string {
	frame = idPattern.ReplaceAllStringFunc(frame, func(id string) string {
		if name, ok := n.toName[id]; ok {
			return name
		}
		kind := id[:strings.Index(id, "_")]
		n.count[kind]++
		name := fmt.Sprintf("<%s-%d>", kind, n.count[kind])
		n.toName[id], n.toID[name] = name, id
		return name
	})
	return timePattern.ReplaceAllString(frame, `"$1":0`)
}

func (n *normalizer) denormalize(frame string) string {
	for name, id := range n.toID {
		frame = strings.ReplaceAll(frame, name, id)
	}
	return frame
}
