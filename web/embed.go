// Package web holds the demo page Core serves at /: plain HTML, CSS and
// JavaScript that import the SDK from /sdk/pedelec.js.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Files is the demo's file tree; its root holds index.html.
var Files fs.FS = mustSub(static, "static")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
