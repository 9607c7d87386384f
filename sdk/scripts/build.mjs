// Builds the SDK into one ES module and one .d.ts, and the classic script
// that installs document.modelContext before a page's own scripts (webmcp.js):
//   node scripts/build.mjs <outdir>   build into outdir (npm run build: dist)
//   node scripts/build.mjs --check    build into a temp dir and fail when the
//                                     committed dist/ differs, so CI proves the
//                                     embedded files are the source's build.
// The React binding (src/react/) becomes dist/react.js and dist/react/*.d.ts;
// both import the SDK as "./pedelec.js" ("../pedelec.js"), so an app has one
// copy of the SDK's classes and of the page's WebMCP tool list.
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import dtsBundleGenerator from "dts-bundle-generator";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "src", "index.ts");
const banner = "// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.";
const reactEntry = join(root, "src", "react", "index.ts");
const SELF = "@kaoruisaac/pedelec";
const FILES = ["pedelec.js", "pedelec.d.ts", "webmcp.js", "react.js", ...reactDeclarationNames()];

function reactDeclarationNames() {
  return readdirSync(join(root, "src", "react"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `react/${f.replace(/\.ts$/, ".d.ts")}`)
    .sort();
}

async function buildReact(outdir) {
  await build({
    entryPoints: [reactEntry],
    outfile: join(outdir, "react.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    legalComments: "none",
    charset: "utf8",
    banner: { js: banner.replace("the Pedelec browser SDK", "the Pedelec browser SDK's React binding") },
    logLevel: "warning",
    external: ["react"],
    plugins: [
      {
        name: "sdk-as-sibling",
        setup(b) {
          b.onResolve({ filter: /^@kaoruisaac\/pedelec$/ }, () => ({ path: "./pedelec.js", external: true }));
        },
      },
    ],
  });
  // tsc's declarations of src/react/ only; the SDK's come from pedelec.d.ts.
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const options = { ...config.options, noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: join(outdir, "tsc"), rootDir: join(root, "src") };
  const program = ts.createProgram([reactEntry], options);
  const reactDir = join(root, "src", "react");
  mkdirSync(join(outdir, "react"), { recursive: true });
  const result = program.emit(undefined, (file, text) => {
    const rel = relative(join(outdir, "tsc", "react"), file);
    if (rel.startsWith("..")) return;
    writeFileSync(join(outdir, "react", rel), `${banner}\n${text.replaceAll(`"${SELF}"`, '"../pedelec.js"')}`);
  });
  const errors = ts.getPreEmitDiagnostics(program).concat(result.diagnostics).filter((d) => d.file?.fileName.startsWith(reactDir));
  if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" }));
}
const classicEntry = join(root, "src", "webmcp-classic.ts");
const classicBanner = "// @kaoruisaac/pedelec webmcp.js: installs document.modelContext for Pedelec. Generated from sdk/src by `npm run build`; do not edit.";

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
  await buildReact(outdir);
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
