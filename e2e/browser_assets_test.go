package e2e

// Session assets in real Chromium: a page on its own origin uploads, lists
// and reads files through the SDK (tickets over the WebSocket, bytes over
// CORS HTTP to Core), an agent writes a report the page reads, and every
// ASSET_* code the SDK surfaces is provoked.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// assetSession creates a script session as window.s and keeps its id.
const assetSession = `
const { Pedelec } = window.sdk;
window.pedelec = window.pedelec ?? new Pedelec();
window.s = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
window.code = async (p) => { try { await p; return "resolved"; } catch (e) { return e.code ?? String(e); } };
return s.sessionId;
`

func TestBrowserAssets(t *testing.T) {
	testenv.SkipShort(t, "Chromium")
	env := newSDKEnv(t)
	b := env.b
	var sid string
	b.js(t, &sid, assetSession)
	assetsDir := filepath.Join(runtime.WorkDir(env.core.StateDir, sid), "work", "assets")

	t.Run("upload, list, and read as text, json and file", func(t *testing.T) {
		var got struct {
			Paths    []string `json:"paths"`
			Listed   []wire.Asset
			Text     string
			JSON     map[string]any
			FileName string
			FileType string
			FileSize int
			FileMod  int64
			Bytes    []int
			Replaced string
		}
		b.js(t, &got, `
const csv = new File(["name,score\nada,3\n"], "data.csv", { type: "text/csv" });
const paths = [];
paths.push(await s.uploadAsset(csv));
paths.push(await s.uploadAsset(new File([JSON.stringify({ ok: true, score: 7 })], "anything.txt"), "/inputs/deep/config.json"));
paths.push(await s.uploadAsset(new File([new Uint8Array([0, 255, 1, 254])], "blob.bin")));
await h.sleep(20);
paths.push(await s.uploadAsset(new File(["new,contents\n"], "data2.csv"), "/data.csv"));
const listed = await s.listAssets();
const text = await s.readAsset("/data.csv", "text");
const json = await s.readAsset("/inputs/deep/config.json", "json");
const f = await s.readAsset("/blob.bin", "file");
const bytes = [...new Uint8Array(await f.arrayBuffer())];
return { paths, listed, text, json, fileName: f.name, fileType: f.type, fileSize: f.size, fileMod: f.lastModified, bytes,
  replaced: await s.readAsset("/data.csv", "text") };
`)
		if strings.Join(got.Paths, " ") != "/data.csv /inputs/deep/config.json /blob.bin /data.csv" {
			t.Errorf("uploadAsset resolved %v", got.Paths)
		}
		if len(got.Listed) != 3 || got.Listed[0].Path != "/data.csv" {
			t.Errorf("listAssets: %+v (want the replaced /data.csv first, newest)", got.Listed)
		}
		for _, x := range got.Listed {
			if x.Path == "/inputs/deep/config.json" && (x.Name != "config.json" || x.SizeBytes != 21 || x.ModifiedAt == 0) {
				t.Errorf("nested entry %+v", x)
			}
		}
		if got.Text != "new,contents\n" || got.JSON["score"] != float64(7) || got.JSON["ok"] != true {
			t.Errorf("text %q json %v", got.Text, got.JSON)
		}
		fi, err := os.Stat(filepath.Join(assetsDir, "blob.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if got.FileName != "blob.bin" || got.FileType != "application/octet-stream" || got.FileSize != 4 ||
			fmt.Sprint(got.Bytes) != "[0 255 1 254]" || got.FileMod != fi.ModTime().UnixMilli() {
			t.Errorf("file: %s %s %d %v mtime %d (disk %d)", got.FileName, got.FileType, got.FileSize, got.Bytes, got.FileMod, fi.ModTime().UnixMilli())
		}
	})

	t.Run("the agent reads the upload and writes results/report.json; the page reads it", func(t *testing.T) {
		var got struct {
			Chat   string
			Report map[string]any
			Listed []wire.Asset
			Type   string
		}
		b.js(t, &got, `
const turn = await s.sendTurn("ls assets\nwrite assets/results/report.json {\"rows\":1,\"best\":\"ada\"}\nsay report ready");
const listed = await s.listAssets();
const report = await s.readAsset("/results/report.json", "json");
const f = await s.readAsset("/results/report.json", "file");
return { chat: turn.text, report, listed, type: f.type };
`)
		if !strings.Contains(got.Chat, "data.csv") || !strings.Contains(got.Chat, "report ready") {
			t.Errorf("the agent saw: %q", got.Chat)
		}
		if got.Report["best"] != "ada" || got.Report["rows"] != float64(1) || got.Type != "application/json" {
			t.Errorf("report %v, type %q", got.Report, got.Type)
		}
		if len(got.Listed) == 0 || got.Listed[0].Path != "/results/report.json" || got.Listed[0].Name != "report.json" {
			t.Errorf("the agent's file is not listed first: %+v", got.Listed)
		}
	})

	t.Run("every asset refusal the page can meet", func(t *testing.T) {
		// A file just over the read limit (sparse), and symlinks out.
		f, err := os.Create(filepath.Join(assetsDir, "huge.bin"))
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(100<<20 + 1)
		f.Close()
		// Links out, planted as a real agent's shell could (the script
		// agent refuses to make them).
		for link, to := range map[string]string{"passwd": "/etc/passwd", "etc": "/etc"} {
			if err := os.Symlink(to, filepath.Join(assetsDir, link)); err != nil {
				t.Fatal(err)
			}
		}
		var got map[string]string
		b.js(t, &got, `
await s.sendText("mkdir assets/folder");
// Invalid UTF-8 needs real bytes: upload them.
await s.uploadAsset(new File([new Uint8Array([0x61, 0xff, 0xfe])], "latin1.txt"));
await s.uploadAsset(new File(["{\"a\": 1,}"], "broken.json"));
const listed = (await s.listAssets()).map((a) => a.path);
const big = new File([new Uint8Array(100 * 1024 * 1024 + 1)], "big.bin");
const slow = new File([new Uint8Array(16 * 1024 * 1024)], "slow.bin");
const first = s.uploadAsset(slow);
const busy = await code(s.uploadAsset(new File(["x"], "x.txt")));
const firstPath = await first;
return {
  dotdot: await code(s.readAsset("/../../etc/passwd", "text")),
  encoded: await code(s.readAsset("/%2e%2e/%2e%2e/etc/passwd", "text")),
  absolute: await code(s.readAsset("etc/passwd", "text")),
  doubleSlash: await code(s.readAsset("//etc/passwd", "text")),
  backslash: await code(s.uploadAsset(new File(["x"], "x.txt"), "/a\\b.txt")),
  symlink: await code(s.readAsset("/passwd", "text")),
  symlinkDir: await code(s.readAsset("/etc/passwd", "text")),
  uploadThroughSymlinkDir: await code(s.uploadAsset(new File(["x"], "x.txt"), "/etc/evil.txt")),
  notFound: await code(s.readAsset("/nope.txt", "text")),
  notFile: await code(s.readAsset("/folder", "text")),
  uploadOverDir: await code(s.uploadAsset(new File(["x"], "x.txt"), "/folder")),
  tooLarge: await code(s.uploadAsset(big)),
  readTooLarge: await code(s.readAsset("/huge.bin", "file")),
  textDecode: await code(s.readAsset("/latin1.txt", "text")),
  jsonDecode: await code(s.readAsset("/latin1.txt", "json")),
  invalidJson: await code(s.readAsset("/broken.json", "json")),
  badType: await code(s.readAsset("/broken.json", "yaml")),
  busy,
  first: firstPath,
  listedSymlinks: String(listed.filter((p) => p.includes("passwd") || p.startsWith("/etc") || p === "/folder")),
};
`)
		want := map[string]string{
			"dotdot": "ASSET_PATH_INVALID", "encoded": "ASSET_PATH_INVALID", "absolute": "ASSET_PATH_INVALID",
			"doubleSlash": "ASSET_PATH_INVALID", "backslash": "ASSET_PATH_INVALID", "symlink": "ASSET_PATH_INVALID",
			"symlinkDir": "ASSET_PATH_INVALID", "uploadThroughSymlinkDir": "ASSET_PATH_INVALID",
			"notFound": "ASSET_NOT_FOUND", "notFile": "ASSET_NOT_FILE", "uploadOverDir": "ASSET_NOT_FILE",
			"tooLarge": "ASSET_TOO_LARGE", "readTooLarge": "ASSET_READ_TOO_LARGE",
			"textDecode": "ASSET_TEXT_DECODE_FAILED", "jsonDecode": "ASSET_TEXT_DECODE_FAILED", "invalidJson": "ASSET_INVALID_JSON",
			"badType": "ASSET_PATH_INVALID", "busy": "SESSION_BUSY", "first": "/slow.bin", "listedSymlinks": "",
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: got %q, want %q", k, got[k], w)
			}
		}
	})

	t.Run("a listing over 10000 files fails with ASSET_LIST_FAILED", func(t *testing.T) {
		many := filepath.Join(assetsDir, "many")
		os.MkdirAll(many, 0o755)
		for i := 0; i <= 10000; i++ {
			os.WriteFile(filepath.Join(many, fmt.Sprintf("f%05d", i)), nil, 0o644)
		}
		var code string
		b.js(t, &code, `return await code(s.listAssets());`)
		if code != "ASSET_LIST_FAILED" {
			t.Errorf("listAssets over the limit: %s", code)
		}
		os.RemoveAll(many)
	})

	t.Run("an ended session refuses every asset method; its assets are removed", func(t *testing.T) {
		var got []string
		b.js(t, &got, `
const other = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
await other.uploadAsset(new File(["x"], "x.txt"));
await s.end();
return [await code(s.listAssets()), await code(s.readAsset("/data.csv", "text")), await code(s.uploadAsset(new File(["x"], "x.txt"))),
  (await other.listAssets()).map((a) => a.path).join()];
`)
		if strings.Join(got, " ") != "SESSION_ENDED SESSION_ENDED SESSION_ENDED /x.txt" {
			t.Errorf("after end: %v", got)
		}
		noSessionLeftovers(t, env.core, sid)
	})
}

// When Core's HTTP port cannot be reached for the transfer itself (here a
// proxy passes the WebSocket and drops everything else), uploads fail with
// ASSET_UPLOAD_SERVER_UNAVAILABLE and reads with ASSET_READ_FAILED.
func TestBrowserAssetTransferUnreachable(t *testing.T) {
	testenv.SkipShort(t, "Chromium")
	env := newSDKEnv(t)
	target, _ := url.Parse(env.core.URL)
	ws := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" {
			ws.ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(proxy.Close)
	var got []string
	env.b.js(t, &got, fmt.Sprintf(`
const { Pedelec } = window.sdk;
const direct = await new Pedelec().createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [] } });
await direct.uploadAsset(new File(["hello"], "hello.txt"));
const viaProxy = await new Pedelec({ url: %q }).resumeSession(direct.sessionId);
const code = async (p) => { try { await p; return "resolved"; } catch (e) { return e.code; } };
return [await code(viaProxy.uploadAsset(new File(["x"], "x.txt"))), await code(viaProxy.readAsset("/hello.txt", "text")),
  (await viaProxy.listAssets()).map((a) => a.path).join()];
`, strings.Replace(proxy.URL, "http:", "ws:", 1)+"/ws"))
	if strings.Join(got, " ") != "ASSET_UPLOAD_SERVER_UNAVAILABLE ASSET_READ_FAILED /hello.txt" {
		t.Errorf("through a proxy that drops transfers: %v", got)
	}
}
