// Builds the SDK into one ES module and one .d.ts, and the classic script
// that installs document.modelContext before a page's own scripts (webmcp.js):
//   node scripts/build.mjs <outdir>   build into outdir (npm run build: dist)
//   node scripts/build.mjs --check    build into a temp dir and fail when the
//                                     committed dist/ differs, so CI proves the
//                                     embedded files are the source's build.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import dtsBundleGenerator from "dts-bundle-generator";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "src", "index.ts");
const banner = "// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.";
const classicEntry = join(root, "src", "webmcp-classic.ts");
const classicBanner = "// @kaoruisaac/pedelec webmcp.js: installs document.modelContext for Pedelec. Generated from sdk/src by `npm run build`; do not edit.";
const FILES = ["pedelec.js", "pedelec.d.ts", "webmcp.js"];

async function buildInto(outdir) {
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [entry],
    outfile: join(outdir, "pedelec.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    sourcemap: false,
    legalComments: "none",
    charset: "utf8",
    banner: { js: banner },
    logLevel: "warning",
  });
  await build({
    entryPoints: [classicEntry],
    outfile: join(outdir, "webmcp.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    sourcemap: false,
    legalComments: "none",
    charset: "utf8",
    banner: { js: classicBanner },
    logLevel: "warning",
  });
  const [dts] = dtsBundleGenerator.generateDtsBundle(
    [{ filePath: entry, output: { noBanner: true, exportReferencedTypes: false } }],
    { preferredConfigPath: join(root, "tsconfig.json") },
  );
  writeFileSync(join(outdir, "pedelec.d.ts"), `${banner}\n\n${dts}`);
}

const arg = process.argv[2] ?? "dist";
if (arg === "--check") {
  const tmp = mkdtempSync(join(tmpdir(), "pedelec-sdk-"));
  try {
    await buildInto(tmp);
    const stale = FILES.filter((f) => {
      const committed = join(root, "dist", f);
      return !existsSync(committed) || !readFileSync(committed).equals(readFileSync(join(tmp, f)));
    });
    if (stale.length > 0) {
      console.error(`dist is out of date with src: ${stale.map((f) => `dist/${f}`).join(", ")}. Run \`npm run build\` in sdk/ and commit dist/.`);
      process.exit(1);
    }
    console.log(`dist matches src: ${FILES.map((f) => `dist/${f}`).join(", ")} are the build of sdk/src`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  await buildInto(resolve(root, arg));
  console.log(`built ${FILES.map((f) => join(arg, f)).join(", ")}`);
}
