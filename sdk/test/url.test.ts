import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_URL, resolveUrl } from "../src/client/url.js";

test("the default is pedelec serve's address", () => {
  assert.equal(resolveUrl(undefined), DEFAULT_URL);
  assert.equal(DEFAULT_URL, "ws://127.0.0.1:7077/ws");
});

test("a module served by Core talks to that Core", () => {
  assert.equal(resolveUrl(undefined, "http://127.0.0.1:9999/sdk/pedelec.js"), "ws://127.0.0.1:9999/ws");
  assert.equal(resolveUrl(undefined, "https://localhost:8443/sdk/pedelec.js"), "wss://localhost:8443/ws");
  assert.equal(resolveUrl(undefined, "http://app.test/assets/index-abc.js"), DEFAULT_URL);
});

test("base http and ws URLs get /ws", () => {
  assert.equal(resolveUrl("http://127.0.0.1:7077"), "ws://127.0.0.1:7077/ws");
  assert.equal(resolveUrl("ws://127.0.0.1:7077/"), "ws://127.0.0.1:7077/ws");
  assert.equal(resolveUrl("ws://127.0.0.1:7077/ws"), "ws://127.0.0.1:7077/ws");
  assert.equal(resolveUrl("https://core.local"), "wss://core.local/ws");
  assert.throws(() => resolveUrl("ftp://x"), /ws:\/\//);
});
