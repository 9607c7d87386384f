// The classic-script form of line 1 (docs/webmcp.md):
//   <script src="http://127.0.0.1:7077/sdk/webmcp.js"></script>
// A classic script runs where it stands, before the inline classic
// scripts after it, where a module (pedelec.js) runs only once the
// document is parsed. It installs document.modelContext (the polyfill, or
// the browser's own observed) at once, so a page that registers its tools
// from an inline <script> registers them with Pedelec too; pedelec.js,
// imported later, shares its registrations (webmcp/shared.ts).

import { installModelContext } from "./webmcp/install.js";

installModelContext();
