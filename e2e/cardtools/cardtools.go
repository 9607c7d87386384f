// Package cardtools is the tool manifest the benchmarks declare: n tools
// shaped like the seeds' create_card, each with its own name and
// description and the same argument schema. One definition, so the memory,
// validate-tools and Core benchmarks measure the same thing.
package cardtools

import (
	"encoding/json"
	"fmt"
	"strings"
)

const argsSchema = `{"type":"object","properties":{"card":{"type":"object","properties":{
"title":{"type":"string","description":"The card's title, one line.","minLength":1,"maxLength":120},
"labels":{"type":"array","items":{"type":"string","enum":["red","green","blue"]},"maxItems":10,"uniqueItems":true},
"priority":{"type":"integer","minimum":1,"maximum":5}},"required":["title"]}},"required":["card"]}`

// Manifest is the skills object ({guidance, tools}) with n tools.
func Manifest(n int) json.RawMessage {
	tools := make([]string, n)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name":"create_card_%d","description":"Create card %d in the active column of the board; returns the new card's id.","argsSchema":%s,"timeoutMs":10000}`, i, i, argsSchema)
	}
	return json.RawMessage(`{"guidance":"Use the tools to manage the board.","tools":[` + strings.Join(tools, ",") + `]}`)
}
