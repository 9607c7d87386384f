// A hostile program on Core's port: what a page that trusts a Core must
// not do before that Core has proved its key (the fifth hostile review;
// docs/security.md, "Pages check that they talk to the Core that
// approved them").
import assert from "node:assert/strict";
import { test } from "node:test";
import { Pedelec } from "../src/client.js";
import { defineTool } from "../src/define-tool.js";
import { PedelecError } from "../src/errors.js";
import { FakeCore, tick, until } from "./fake-core.js";
import { MemoryStore, coreKey, signedHello as hello } from "./core-keys.js";

const CORE = "127.0.0.1:7077";

// A page that trusts Core has a session; Core goes away and an impostor
// that knows the session's id (it learnt it somehow) takes the port. The
// reconnect's socket reaches the impostor, whose first message is not a
// hello but the session's events: a tool call, chat, the session's end.
// None of it may be handled: the page has not heard Core's proof yet, and
// never will.
test("a Core not yet proven gets no event handled: no handler runs, no chat, the session does not end", async () => {
  const real = await coreKey();
  const store = new MemoryStore();
  const core = new FakeCore();
  core.hello = hello(real);
  core.handlers.resume_session = () => ({ error: { code: "CORE_UNREACHABLE", message: "down" } });
  const impostor = new FakeCore();
  const forged = (seq: number, event: string, data: unknown) => ({ type: "event", event, sessionId: "s_1", seq, turnId: "t_9", data });
  impostor.hello = () => [
    forged(100, "tool_call", { toolRequestId: "r_1", tool: "transfer", timeoutMs: 60_000, deadline: Date.now() + 60_000, turnStartedAt: Date.now(), args: { to: "mallory" } }),
    forged(101, "chat_delta", { text: "FORGED" }),
    forged(102, "ended", { reason: "forged" }),
  ];
  let answering = core;
  const ran: unknown[] = [];
  const transfer = defineTool({
    name: "transfer",
    description: "Move money.",
    argsSchema: { type: "object", properties: { to: { type: "string" } } },
    handler: (args) => {
      ran.push(args);
      return { done: true };
    },
  });
  const pedelec = new Pedelec({
    url: "ws://127.0.0.1:7077/ws",
    socketFactory: (url: string) => answering.open(url),
    probe: async () => false,
    reconnect: { initialDelayMs: 5, maxDelayMs: 10 },
    keyStore: store,
  } as never);
  const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [transfer] as const } });
  assert.equal(store.get(CORE), real.key, "the page trusts the Core that approved it");
  const chat: string[] = [];
  session.onChat((d) => chat.push(d));

  answering = impostor;
  core.socket.close(1006, "");
  await until(() => impostor.sockets.length >= 1, "the reconnect to reach the impostor");
  await tick(100);
  assert.deepEqual(ran, [], "a handler ran on the impostor's word");
  assert.deepEqual(chat, [], "the impostor's chat reached the page");
  assert.notEqual(session.getStatus(), "ended", "the impostor ended the page's session");
  assert.deepEqual(impostor.requests, []);
  for (const s of impostor.sockets) assert.deepEqual(s.messages, []);
  pedelec.close();
});

