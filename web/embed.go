// Package web holds the demo page Core serves at / (plain HTML, CSS and
// JavaScript that import the SDK from /sdk/pedelec.js) and the console it
// serves at /console/.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Files is the demo's file tree; its root holds index.html.
var Files fs.FS = mustSub(static, "static")

//go:embed console
var console embed.FS

// Console is the console's file tree (Core serves it at /console/): its
// index.html carries the marker Core replaces with the approver token.
var Console fs.FS = mustSub(console, "console")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
