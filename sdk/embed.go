// Package sdk holds the browser SDK. Its TypeScript source is in src/; the
// built ES module and its type declarations are committed in dist/ and
// embedded here, so `go build` needs no Node and Core can serve them at
// /sdk/pedelec.js and /sdk/pedelec.d.ts, with the classic script that
// installs document.modelContext before a page's own scripts at
// /sdk/webmcp.js. `npm test` in this folder proves
// dist/ is the build of src/.
package sdk

import "embed"

// Dist holds dist/pedelec.js, dist/pedelec.d.ts and dist/webmcp.js.
//
//go:embed dist/pedelec.js dist/pedelec.d.ts dist/webmcp.js
var Dist embed.FS
