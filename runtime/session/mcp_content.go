package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A result's MCP content blocks (submit_tool_result's mcpContent): what a
// WebMCP tool's CallToolResult held, passed to MCP clients as it is. Core
// checks every block before the call settles, so an MCP client never gets
// a block it cannot read and the bridge never fails to build the
// CallToolResult: each block is an object of a type a tool result may
// hold, with the fields that type requires, of the types MCP gives them.
// A block that is not is the page's bug, and the call is answered with
// TOOL_RESULT_INVALID naming the block and the field (as a result that
// breaks its outputSchema is).

// maxContentBlocks bounds the blocks of one result. The frame limit
// bounds their bytes; this bounds the work of checking them, and is far
// above what any tool returns (MCP-B's answers hold one or two).
const maxContentBlocks = 256

// contentFields is, per block type, its required fields and their kinds.
var contentFields = map[string][]contentField{
	"text":          {{"text", kindString}},
	"image":         {{"data", kindBase64}, {"mimeType", kindNonEmpty}},
	"audio":         {{"data", kindBase64}, {"mimeType", kindNonEmpty}},
	"resource_link": {{"uri", kindNonEmpty}, {"name", kindString}},
	"resource":      {{"resource", kindObject}},
}

// optionalFields are the optional fields whose kind a block's reader
// depends on (MCP's annotations and _meta on every block).
var optionalFields = map[string][]contentField{
	"resource_link": {{"title", kindString}, {"description", kindString}, {"mimeType", kindString}, {"size", kindSize}, {"icons", kindIcons}},
}

var commonOptional = []contentField{{"annotations", kindObject}, {"_meta", kindObject}}

// annotationFields are MCP's annotations of a block, all optional.
var annotationFields = []contentField{{"audience", kindRoles}, {"priority", kindPriority}, {"lastModified", kindString}}

type contentField struct {
	name string
	kind fieldKind
}

type fieldKind int

const (
	kindString   fieldKind = iota // a string
	kindNonEmpty                  // a string that is not empty
	kindBase64                    // a string of standard, padded base64
	kindObject                    // a JSON object
	kindSize                      // a whole number of bytes, 0 or more
	kindRoles                     // an array of "user" and "assistant"
	kindPriority                  // a number from 0 to 1
	kindIcons                     // an array of icons: {src, mimeType?, sizes?, theme?}
)

func (k fieldKind) want() string {
	switch k {
	case kindNonEmpty:
		return "a non-empty string"
	case kindBase64:
		return "a string of base64 (standard alphabet, padded)"
	case kindObject:
		return "an object"
	case kindSize:
		return "a whole number of bytes"
	case kindRoles:
		return `an array of "user" and "assistant"`
	case kindPriority:
		return "a number from 0 to 1"
	case kindIcons:
		return "an array of icons, each {src, mimeType?, sizes?, theme?}"
	}
	return "a string"
}

// contentProblem is what is wrong with the blocks: Index is the block
// (-1: the value as a whole), Field its field ("" for the block itself).
type contentProblem struct {
	Index   int
	Field   string
	Message string
}

func (p *contentProblem) path() string {
	path := "mcpContent"
	if p.Index >= 0 {
		path += fmt.Sprintf("[%d]", p.Index)
	}
	if p.Field != "" {
		path += "." + p.Field
	}
	return path
}

// checkMCPContent finds the first problem with content, or nil.
// The blocks are decoded once, as objects of raw fields; only when that
// fails are they decoded again, to say which block is no object.
func checkMCPContent(content json.RawMessage) *contentProblem {
	notArray := func() *contentProblem {
		return &contentProblem{Index: -1, Message: "must be an array of MCP content blocks (a CallToolResult's content); got " + jsonKind(content)}
	}
	trimmed := bytes.TrimSpace(content)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return notArray()
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &blocks); err != nil {
		var raws []json.RawMessage
		if json.Unmarshal(trimmed, &raws) != nil {
			return notArray()
		}
		for i, raw := range raws {
			if raw[0] != '{' {
				return &contentProblem{Index: i, Message: "must be an object with a type; got " + jsonKind(raw)}
			}
		}
		return notArray() // not reached: the frame was JSON, and every block an object
	}
	if len(blocks) > maxContentBlocks {
		return &contentProblem{Index: -1, Message: fmt.Sprintf("has %d blocks; at most %d", len(blocks), maxContentBlocks)}
	}
	for i, block := range blocks {
		if p := checkBlock(block); p != nil {
			p.Index = i
			return p
		}
	}
	return nil
}

func checkBlock(block map[string]json.RawMessage) *contentProblem {
	if block == nil { // a null in the array
		return &contentProblem{Message: "must be an object with a type; got null"}
	}
	var typ string
	if t, ok := block["type"]; !ok || json.Unmarshal(t, &typ) != nil {
		return &contentProblem{Field: "type", Message: "must be one of " + knownTypes() + "; got " + describe(block["type"])}
	}
	required, ok := contentFields[typ]
	if !ok {
		return &contentProblem{Field: "type", Message: fmt.Sprintf("%q is not a content type a tool result may hold; use one of %s", typ, knownTypes())}
	}
	for _, f := range required {
		v, ok := block[f.name]
		if !ok {
			return &contentProblem{Field: f.name, Message: fmt.Sprintf("is missing; a %s block needs %s", typ, fieldList(required))}
		}
		if msg := checkKind(v, f.kind); msg != "" {
			return &contentProblem{Field: f.name, Message: msg}
		}
	}
	for _, f := range append(optionalFields[typ], commonOptional...) {
		if v, ok := block[f.name]; ok {
			if msg := checkKind(v, f.kind); msg != "" {
				return &contentProblem{Field: f.name, Message: msg}
			}
		}
	}
	if raw, ok := block["annotations"]; ok {
		var a map[string]json.RawMessage
		_ = json.Unmarshal(raw, &a) // checkKind proved it an object
		for _, f := range annotationFields {
			if v, ok := a[f.name]; ok {
				if msg := checkKind(v, f.kind); msg != "" {
					return &contentProblem{Field: "annotations." + f.name, Message: msg}
				}
			}
		}
	}
	if typ == "resource" {
		return checkResource(block["resource"])
	}
	return nil
}

// checkResource checks an embedded resource's contents: a uri, and its
// text or its blob.
func checkResource(raw json.RawMessage) *contentProblem {
	var res map[string]json.RawMessage
	_ = json.Unmarshal(raw, &res) // checkKind proved it an object
	fields := []contentField{{"uri", kindNonEmpty}, {"mimeType", kindString}, {"text", kindString}, {"blob", kindBase64}, {"_meta", kindObject}}
	for _, f := range fields {
		v, ok := res[f.name]
		if !ok {
			if f.name == "uri" {
				return &contentProblem{Field: "resource.uri", Message: "is missing; an embedded resource needs a uri, and its text or its blob"}
			}
			continue
		}
		if msg := checkKind(v, f.kind); msg != "" {
			return &contentProblem{Field: "resource." + f.name, Message: msg}
		}
	}
	_, text := res["text"]
	_, blob := res["blob"]
	if text == blob {
		return &contentProblem{Field: "resource", Message: "must have either text (a text resource) or blob (base64 bytes), not both or neither"}
	}
	return nil
}

func checkKind(v json.RawMessage, kind fieldKind) string {
	bad := func() string { return "must be " + kind.want() + "; got " + describe(v) }
	switch kind {
	case kindObject:
		if len(v) == 0 || v[0] != '{' {
			return bad()
		}
	case kindRoles:
		var roles []string
		if json.Unmarshal(v, &roles) != nil {
			return bad()
		}
		for _, r := range roles {
			if r != "user" && r != "assistant" {
				return fmt.Sprintf("must be %s; got %q", kind.want(), r)
			}
		}
	case kindPriority:
		var p float64
		if json.Unmarshal(v, &p) != nil || p < 0 || p > 1 {
			return bad()
		}
	case kindIcons:
		var icons []struct {
			Src      *string  `json:"src"`
			MIMEType string   `json:"mimeType"`
			Sizes    []string `json:"sizes"`
			Theme    string   `json:"theme"`
		}
		if json.Unmarshal(v, &icons) != nil {
			return bad()
		}
		for i, icon := range icons {
			if icon.Src == nil || *icon.Src == "" {
				return fmt.Sprintf("must be %s; icon %d has no src", kind.want(), i)
			}
		}
	case kindSize:
		var n int64
		if json.Unmarshal(v, &n) != nil || n < 0 {
			return bad()
		}
	case kindBase64:
		data, ok := stringBytes(v)
		if !ok {
			return bad()
		}
		if _, err := base64.StdEncoding.Strict().Decode(make([]byte, base64.StdEncoding.DecodedLen(len(data))), data); err != nil {
			return fmt.Sprintf("must be %s; it is not (%v)", kind.want(), err)
		}
	default:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad()
		}
		if kind == kindNonEmpty && s == "" {
			return "must be " + kind.want() + "; got an empty string"
		}
	}
	return ""
}

// stringBytes is the text of the JSON string v. Base64 has no character
// JSON must escape, so an image's data is the bytes between its quotes,
// taken as they are rather than decoded again (a 768 KiB image took 58 ms
// decoded three times); a string with an escape is decoded.
func stringBytes(v json.RawMessage) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return inner, true // the frame was decoded: v is a well-formed string
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// mcpContentInvalid is TOOL_RESULT_INVALID for blocks that break p.
func mcpContentInvalid(call *pendingCall, p *contentProblem) *wire.Error {
	details := map[string]any{"tool": call.tool, "toolRequestId": call.id, "path": p.path()}
	if p.Index >= 0 {
		details["index"] = p.Index
	}
	if p.Field != "" {
		details["field"] = p.Field
	}
	return wire.Errorf(wire.CodeToolResultInvalid, "the result of %s carries MCP content an MCP client cannot be given: %s %s; the page must fix the tool's content blocks",
		call.tool, p.path(), p.Message).WithDetails(details)
}

func knownTypes() string { return "text, image, audio, resource_link, resource" }

func fieldList(fields []contentField) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name + " (" + f.kind.want() + ")"
	}
	return strings.Join(names, " and ")
}

// describe is a field's value as an error message shows it: short.
func describe(v json.RawMessage) string {
	if v == nil {
		return "nothing"
	}
	if len(v) > 40 {
		return jsonKind(v)
	}
	return jsonKind(v) + " " + string(v)
}

// jsonKind names the kind of a JSON value, by the one reading of a
// value's top level that result files use too (shapeOf).
func jsonKind(v json.RawMessage) string {
	switch t := shapeOf(v).Type; t {
	case "object", "array":
		return "an " + t
	case "unknown":
		return "nothing"
	case "null":
		return "null"
	default:
		return "a " + t
	}
}
