package e2e

// The demo's Files panel, driven as a person would: choose a file, upload
// it, let the agent write a report, open it.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestBrowserDemoFiles(t *testing.T) {
	testenv.SkipShort(t, "Chromium")
	d := openDemo(t, "")
	local := filepath.Join(t.TempDir(), "scores.csv")
	os.WriteFile(local, []byte("name,score\nada,3\n"), 0o644)

	if err := d.b.do(10*time.Second, chromedp.SetUploadFiles("#asset-file", []string{local})); err != nil {
		t.Fatal(err)
	}
	d.click("#asset-upload")
	d.b.waitJS(t, 15*time.Second, `!!document.querySelector("#asset-list li[data-path='/scores.csv']")`, "the upload in the list")
	if note := d.text("#asset-note"); !strings.Contains(note, "Uploaded /scores.csv") {
		t.Errorf("after the upload the panel says %q", note)
	}

	d.sendExample("ls assets")
	if reply := d.reply(1); !strings.Contains(reply, "scores.csv") {
		t.Errorf("the agent did not see the upload: %q", reply)
	}
	d.b.waitJS(t, 15*time.Second, `document.querySelector("#asset-list li")?.dataset.path === "/results/report.json"`, "the agent's report first in the list")

	d.click(`#asset-list li[data-path='/results/report.json'] button`)
	d.b.waitJS(t, 15*time.Second, `!!document.getElementById("asset-text")`, "the report opened")
	if got := d.text("#asset-text"); !strings.Contains(got, `"written by the agent"`) {
		t.Errorf("opened report shows %q", got)
	}
	if title := d.text(".asset-title"); !strings.Contains(title, "report.json · application/json") {
		t.Errorf("opened report title %q", title)
	}
	d.click(`#asset-list li[data-path='/scores.csv'] button`)
	d.b.waitJS(t, 15*time.Second, `document.getElementById("asset-text")?.textContent === "name,score\nada,3\n"`, "the upload opened")
	d.b.js(t, nil, `document.getElementById("assets-card").scrollIntoView()`)
	d.b.screenshot(t, "demo-files")
}
