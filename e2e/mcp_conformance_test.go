package e2e

import (
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// The official MCP conformance suite's server scenarios against Core's
// /mcp, with a page in Chromium holding the tools they call (handlers
// written as a page author would: a throw is a throw; images, audio and
// embedded resources returned with mcpResult). The scenarios that apply to
// a bridge of page tools must pass; the others ask for what a page's tool
// does not have (sampling, elicitation, logging from a tool, resources,
// prompts, completions, a tool that closes its own SSE stream) and are not
// run.
// The suite's client sends no Authorization header, so a loopback proxy
// in front of Core adds the Core token and passes everything else,
// the Host header included (dns-rebinding-protection checks it).

// conformanceScenarios must pass.
var conformanceScenarios = []string{
	"server-initialize", "ping", "logging-set-level", "tools-list",
	"tools-call-simple-text", "tools-call-image", "tools-call-audio",
	"tools-call-embedded-resource", "tools-call-mixed-content",
	"tools-call-error", "tools-call-with-progress",
	"json-schema-2020-12", "dns-rebinding-protection",
}

const conformancePage = `
const { Pedelec, defineTool, mcpResult } = window.sdk;
const pedelec = new Pedelec();
const none = { type: "object", properties: {}, required: [] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A 1x1 red PNG and a WAV of one silent sample, in base64.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const wav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";
const tools = [
  defineTool({ name: "test_simple_text", description: "Returns simple text.", argsSchema: none,
    handler: () => "This is a simple text response for testing." }),
  defineTool({ name: "test_image_content", description: "Returns an image.", argsSchema: none,
    handler: () => mcpResult({ content: [{ type: "image", data: png, mimeType: "image/png" }] }) }),
  defineTool({ name: "test_audio_content", description: "Returns audio.", argsSchema: none,
    handler: () => mcpResult({ content: [{ type: "audio", data: wav, mimeType: "audio/wav" }] }) }),
  defineTool({ name: "test_embedded_resource", description: "Returns an embedded resource.", argsSchema: none,
    handler: () => mcpResult({ content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }] }) }),
  defineTool({ name: "test_multiple_content_types", description: "Returns text, an image and a resource.", argsSchema: none,
    handler: () => mcpResult({ content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: png, mimeType: "image/png" },
      { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
    ] }) }),
  defineTool({ name: "test_error_handling", description: "Always throws.", argsSchema: none,
    handler: () => { throw new Error("This tool intentionally returns an error for testing"); } }),
  defineTool({ name: "test_tool_with_progress", description: "Reports progress 0, 50, 100 of 100.", argsSchema: none,
    handler: async (args, ctx) => {
      ctx.progress({ progress: 0, total: 100 }); await sleep(300);
      ctx.progress({ progress: 50, total: 100 }); await sleep(300);
      ctx.progress({ progress: 100, total: 100 });
      return "progress reported";
    } }),
];
window.conformance = await pedelec.createSession({ provider: "mcp", skills: { guidance: "conformance", tools } });
// The scenario lists a draft 2020-12 schema and looks for $schema, $defs
// and additionalProperties as written: an inputSchema, checked in full.
window.conformance2020 = await pedelec.createSession({ provider: "mcp", skills: { guidance: "conformance", tools: [
  defineTool({ name: "json_schema_2020_12_tool", description: "Tool with JSON Schema 2020-12 features",
    inputSchema: { "$schema": "https://json-schema.org/draft/2020-12/schema", type: "object",
      "$defs": { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { "$ref": "#/$defs/address" } }, additionalProperties: false },
    handler: (args) => args }),
] } });
return "both";
`

func TestMCPConformanceSuite(t *testing.T) {
	node, cli := testenv.ConformanceSuite(t)
	env := newSDKEnv(t)
	var sessions string
	env.b.js(t, &sessions, conformancePage)
	if sessions != "both" {
		t.Fatalf("the page's sessions: %s", sessions)
	}
	target, _ := url.Parse(env.core.URL)
	token := coreToken(t, env.core)
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
		r.Out.Header.Set("Authorization", "Bearer "+token)
	}, FlushInterval: -1})
	defer proxy.Close()
	run := func(scenario string) (string, bool) {
		cmd := exec.Command(node, cli, "server", "--url", proxy.URL+"/mcp", "--scenario", scenario)
		out, err := cmd.CombinedOutput()
		return string(out), err == nil && !strings.Contains(string(out), "FAILURE")
	}
	for _, s := range conformanceScenarios {
		t.Run(s, func(t *testing.T) {
			if out, ok := run(s); !ok {
				t.Errorf("scenario %s failed:\n%s", s, out)
			}
		})
	}
}
