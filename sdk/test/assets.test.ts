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

test("bad paths, sizes and types fail before any request", async () => {
  const { core, session } = await setup();
  const code = (p: Promise<unknown>) => p.then(() => "resolved", (e: PedelecError) => e.code);
  assert.equal(await code(session.readAsset("/../etc/passwd" as `/${string}`, "text")), "ASSET_PATH_INVALID");
  assert.equal(await code(session.readAsset("/a", "yaml" as "text")), "INVALID_INPUT");
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
