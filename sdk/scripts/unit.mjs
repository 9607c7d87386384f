// Runs the unit tests (test/*.test.ts) with node's own test runner. Node 20
// cannot run TypeScript, so esbuild compiles each test (with the source it
// imports) into a temp dir first; nothing else is needed to run them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const testDir = join(root, "test");
const tests = readdirSync(testDir).filter((f) => f.endsWith(".test.ts"));
const out = mkdtempSync(join(tmpdir(), "pedelec-sdk-test-"));
let status = 1;
try {
  await build({
    entryPoints: tests.map((f) => join(testDir, f)),
    outdir: out,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Packages are bundled: the compiled tests run from a temp dir, where
    // node_modules (zod, TypeBox for the Standard Schema tests) is not.
    sourcemap: "inline",
    logLevel: "warning",
    // Tests find repository files (Go goldens, errors.go) from here.
    define: { "process.env.PEDELEC_SDK_ROOT": JSON.stringify(root) },
  });
  const files = tests.map((f) => join(out, f.replace(/\.ts$/, ".mjs")));
  const run = spawnSync(process.execPath, ["--test", "--enable-source-maps", ...files], { stdio: "inherit" });
  status = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(status);
