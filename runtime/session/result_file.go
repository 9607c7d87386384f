package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Large results become files (issue 26). A handler that returns a page's
// table or a document would otherwise flood the agent's context, or be cut
// in the middle by the agent's shell tool (Claude Code's Bash keeps 30 000
// characters), which leaves JSON no one can read. A result over
// Options.MaxInlineResultBytes is written to the session's assets, inside
// the agent's working directory, and the agent gets a wire.ResultFile: the
// file's path, its size, its top-level shape and a preview. It reads the
// file with the tools it already has. The page (tool_call_settled, its own
// handler's value) and the console see the full result as before.

// resultFilesDir is where result files go, as an asset path: the page can
// read them back (readAsset) and the agent finds them under assets/.
const resultFilesDir = "/tool-results"

// previewRunes bounds ResultFile.Preview: enough to see what the result
// is (the first rows of a table, a document's title), small enough that
// the answer stays a few hundred bytes.
const previewRunes = 300

// maxShapeKeys bounds ResultShape.Keys for an object with many keys.
const maxShapeKeys = 20

// Answer is a result as an agent's shell gets it (Call renders with it):
// inline, or, when it is larger than the inline limit, the file it was
// written to. A file
// that cannot be written leaves the result inline: the agent still gets
// its answer, only larger, and the log says why.
func (s *Session) Answer(tool string, result json.RawMessage, err error) wire.AgentResult {
	if err != nil {
		return wire.AgentResult{Error: wire.AsError(err)}
	}
	limit := s.table.cfg.MaxInlineResultBytes
	if limit < 0 || len(result) <= limit {
		return wire.AgentResult{OK: true, Result: result}
	}
	file, werr := s.writeResultFile(tool, result)
	if werr != nil {
		s.log.Warn("a large result stays inline: its file could not be written", "tool", tool, "bytes", len(result), "err", werr)
		return wire.AgentResult{OK: true, Result: result}
	}
	return wire.AgentResult{OK: true, ResultFile: file}
}

// writeResultFile writes result to a new file in the session's assets and
// describes it.
func (s *Session) writeResultFile(tool string, result json.RawMessage) (*wire.ResultFile, error) {
	pub := resultFilesDir + "/" + safeFileName(tool) + "-" + ids.New("") + ".json"
	release, err := s.ReserveAssetQuota(pub, int64(len(result)))
	if err != nil {
		return nil, err
	}
	defer release()
	if _, err := s.Assets().Write(pub, result); err != nil {
		return nil, err
	}
	abs := filepath.Join(s.dirs.work, "assets", filepath.FromSlash(strings.TrimPrefix(pub, "/")))
	return &wire.ResultFile{
		Path:      abs,
		AssetPath: pub,
		SizeBytes: len(result),
		Shape:     shapeOf(result),
		Preview:   preview(result),
		Hint: fmt.Sprintf("The result of %s is %d bytes, more than the %d shown inline: it is the JSON in the file at path. Read the part you need from that file (a few lines, or search it, e.g. with jq) instead of printing it all.",
			tool, len(result), s.table.cfg.MaxInlineResultBytes),
	}, nil
}

// safeFileName keeps a tool name's letters, digits, '_' and '-' (a name
// may hold '.'); the file's own id makes it unique.
func safeFileName(tool string) string {
	var b strings.Builder
	for _, r := range tool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	return b.String()
}

// shapeOf reads a result's top level: an object's keys, an array's
// length. The result is JSON the broker accepted, so one pass over its
// bytes that skips strings and counts commas at depth 1 says all of it,
// without decoding the values (json.Decoder took 14 ms for 64 KiB).
func shapeOf(result json.RawMessage) wire.ResultShape {
	b := bytes.TrimLeft(result, " \t\r\n")
	if len(b) == 0 {
		return wire.ResultShape{Type: "unknown"}
	}
	switch b[0] {
	case '{', '[':
		return containerShape(b)
	case '"':
		var s string
		_ = json.Unmarshal(bytes.TrimRight(b, " \t\r\n"), &s)
		n := utf8.RuneCountInString(s)
		return wire.ResultShape{Type: "string", Length: &n}
	case 't', 'f':
		return wire.ResultShape{Type: "boolean"}
	case 'n':
		return wire.ResultShape{Type: "null"}
	}
	return wire.ResultShape{Type: "number"}
}

// containerShape scans one object or array (b starts with its bracket).
func containerShape(b []byte) wire.ResultShape {
	object := b[0] == '{'
	depth, commas, empty, wantKey := 0, 0, true, object
	var keys []string
scan:
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++ // the escaped byte cannot end the string
				}
				j++
			}
			if depth == 1 {
				empty = false
				if wantKey {
					if len(keys) < maxShapeKeys {
						var k string
						_ = json.Unmarshal(b[i:min(j+1, len(b))], &k)
						keys = append(keys, k)
					}
					wantKey = false
				}
			}
			i = j
		case '{', '[':
			depth++
			if depth == 2 {
				empty = false
			}
		case '}', ']':
			depth--
			if depth == 0 {
				break scan
			}
		case ',':
			if depth == 1 {
				commas++
				wantKey = object
			}
		case ' ', '\t', '\n', '\r':
		default:
			if depth == 1 {
				empty = false
			}
		}
	}
	n := 0
	if !empty {
		n = commas + 1
	}
	if !object {
		return wire.ResultShape{Type: "array", Length: &n}
	}
	shape := wire.ResultShape{Type: "object", Keys: keys}
	if shape.Keys == nil {
		shape.Keys = []string{}
	}
	if n > maxShapeKeys {
		shape.Length = &n // the number of keys, when not all are listed
	}
	return shape
}

// preview is the result's first previewRunes characters, cut at a
// character boundary.
func preview(result json.RawMessage) string {
	if utf8.RuneCount(result) <= previewRunes {
		return string(result)
	}
	n, i := 0, 0
	for i < len(result) && n < previewRunes {
		_, size := utf8.DecodeRune(result[i:])
		i += size
		n++
	}
	return string(result[:i]) + "…"
}
