import assert from "node:assert/strict";
import { test } from "node:test";
import { assetPathError, MAX_ASSET_BYTES } from "../src/assets.js";
import type { PedelecError } from "../src/errors.js";
import { FakeCore } from "./fake-core.js";

async function setup() {
  const core = new FakeCore();
  const session = await core.client().createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  return { core, session };
}

test("asset paths follow Core's rules", () => {
  for (const p of ["/a", "/results/report.json", "/.env", "/..a", "/%2e%2ex"]) assert.equal(assetPathError(p), null, p);
  for (const p of ["", "a", "/", "//x", "/a/", "/..", "/a/../b", "/./a", "/%2e%2E/etc/passwd", "/a\\b", "/.pedelec-x", 7]) {
    assert.equal(assetPathError(p)?.code, "ASSET_PATH_INVALID", String(p));
  }
});

test("asset names with control or bidi characters are refused as Core refuses them", () => {
  for (const [p, at, ch] of [
    ["/evil\u202etxt.exe", 5, "U+202E"],
    ["/é\u2066x", 3, "U+2066"],
    ["/a\nb", 2, "U+000A"],
    ["/a\u0085", 2, "U+0085"],
    ["/x\u061c", 2, "U+061C"],
    ["/x\u007f", 2, "U+007F"],
  ] as const) {
    const err = assetPathError(p);
    assert.equal(err?.code, "ASSET_PATH_INVALID", JSON.stringify(p));
    const details = err?.details as { offset?: number; character?: string } | undefined;
    assert.deepEqual([details?.offset, details?.character], [at, ch], JSON.stringify(p));
    assert.ok(err!.message.includes(`contains ${ch} at byte ${at}`), err!.message);
    assert.ok(!/[\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/.test(err!.message), "the message shows the character escaped");
  }
  assert.equal(assetPathError("/résumé-日本.txt"), null);
});

test("bad paths, sizes and types fail before any request", async () => {
  const { core, session } = await setup();
  const code = (p: Promise<unknown>) => p.then(() => "resolved", (e: PedelecError) => e.code);
  assert.equal(await code(session.readAsset("/../etc/passwd" as `/${string}`, "text")), "ASSET_PATH_INVALID");
  // The original's code for a read it cannot make (issue 23).
  assert.equal(await code(session.readAsset("/a", "yaml" as "text")), "ASSET_PATH_INVALID");
  assert.equal(await code(session.uploadAsset(new File(["x"], "a.txt"), "relative" as `/${string}`)), "ASSET_PATH_INVALID");
  const big = { size: MAX_ASSET_BYTES + 1, name: "big.bin" };
  Object.setPrototypeOf(big, File.prototype);
  assert.equal(await code(session.uploadAsset(big as File)), "ASSET_TOO_LARGE");
  assert.equal(await code(session.uploadAsset("text" as unknown as File)), "INVALID_INPUT");
  assert.equal(core.requests.filter((r) => r.method.startsWith("asset") || r.method === "list_assets").length, 0);
});

test("listAssets returns Core's list; Core's errors pass through; ended sessions refuse", async () => {
  const { core, session } = await setup();
  const asset = { name: "r.json", path: "/results/r.json", sizeBytes: 2, modifiedAt: 5 };
  core.handlers.list_assets = () => ({ result: { assets: [asset] } });
  assert.deepEqual(await session.listAssets(), [asset]);
  core.handlers.asset_read_ticket = () => ({ error: { code: "ASSET_NOT_FOUND", message: "no", details: { path: "/x" } } });
  await assert.rejects(session.readAsset("/x", "json"), (e: PedelecError) => e.code === "ASSET_NOT_FOUND");
  await session.end();
  await assert.rejects(session.listAssets(), (e: PedelecError) => e.code === "SESSION_ENDED");
  await assert.rejects(session.uploadAsset(new File(["x"], "a.txt")), (e: PedelecError) => e.code === "SESSION_ENDED");
  await assert.rejects(session.readAsset("/x", "file"), (e: PedelecError) => e.code === "SESSION_ENDED");
});
