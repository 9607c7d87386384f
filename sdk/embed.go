// Package sdk holds the browser SDK. Its TypeScript source is in src/; the
// built ES module and its type declarations are committed in dist/ and
// embedded here, so `go build` needs no Node and Core can serve them at
// /sdk/pedelec.js and /sdk/pedelec.d.ts. `npm test` in this folder proves
// dist/ is the build of src/.
package sdk

import "embed"

// Dist holds dist/pedelec.js and dist/pedelec.d.ts.
//
//go:embed dist/pedelec.js dist/pedelec.d.ts
var Dist embed.FS
