// A page with an opaque origin (a sandboxed frame without
// allow-same-origin, a data: or file: page) sends `Origin: null`, which
// Core refuses whatever --allow-origin says (no one could approve it). Its
// location.origin is still its URL's origin, so the refusal must not tell
// the developer to allow that origin: it is the opaque one that is
// refused, and only giving the page a real origin helps. (review5e)
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeCore } from "./fake-core.js";
import type { PedelecError } from "../src/index.js";

const g = globalThis as Record<string, unknown>;
// A sandboxed frame of http://127.0.0.1:5173: its URL's origin in
// location, "null" as its own origin (self.origin), as Chromium has it.
g.location = { href: "http://127.0.0.1:5173/frame.html", origin: "http://127.0.0.1:5173" };
g.origin = "null";

test("a page of an opaque origin refused during the handshake is told its origin is null, not to allow its URL's origin", async () => {
  const core = new FakeCore();
  core.refuse = { code: 1006, reason: "" };
  core.httpUp = true; // Core answers HTTP: the refusal is the origin's
  const err = await core.client().listProviders().then(
    () => null,
    (e: PedelecError) => e,
  );
  assert.ok(err, "the refused page's request resolved");
  assert.equal(err.code, "ORIGIN_NOT_ALLOWED");
  assert.equal((err.details as { origin?: string }).origin, "null", err.message);
  assert.doesNotMatch(err.message, /--allow-origin http:\/\/127\.0\.0\.1:5173/, "tells the developer to allow an origin that is not the one refused");
  assert.match(err.message, /sandbox|opaque/i);
});

test("a page of an opaque origin that reaches nothing is not told to allow its URL's origin either", async () => {
  const core = new FakeCore();
  core.refuse = { code: 1006, reason: "" };
  core.httpUp = false;
  const err = await core.client().listProviders().then(
    () => null,
    (e: PedelecError) => e,
  );
  assert.ok(err);
  assert.equal(err.code, "CORE_UNREACHABLE");
  assert.doesNotMatch(err.message, /--allow-origin http:\/\/127\.0\.0\.1:5173/);
});
