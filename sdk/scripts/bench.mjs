// Runs test/calls.bench.ts: the SDK's JavaScript CPU per tool call in Node
// (`npm run bench`). esbuild compiles it, as for the unit tests.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = mkdtempSync(join(tmpdir(), "pedelec-sdk-bench-"));
let status = 1;
try {
  const file = join(out, "calls.bench.mjs");
  await build({ entryPoints: [join(root, "test", "calls.bench.ts")], outfile: file, bundle: true, format: "esm", platform: "node", target: "node20", packages: "external", logLevel: "warning" });
  status = spawnSync(process.execPath, [file], { stdio: "inherit" }).status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(status);
