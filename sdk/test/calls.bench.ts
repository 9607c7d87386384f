// The SDK's JavaScript per tool call, without a browser: a fake Core on a
// fake socket sends what the real one sends for one call over a batched
// connection (status_changed + tool_call; then tool_call_settled +
// status_changed + the submit's response), the session runs a trivial
// handler, and this measures the process's CPU per call. It isolates the
// SDK's own work (parsing, dispatch, contexts, promises, GC) from
// Chromium's per-message cost, which e2e/bench measures. `npm run bench`.
import { Pedelec } from "../src/client.js";
import type { SocketLike } from "../src/client/connection.js";

class BenchCore {
  seq = 0;
  left = 0;
  socket!: BenchSocket;
  done: () => void = () => {};

  receive(data: string) {
    const parsed = JSON.parse(data) as { id: number; method: string; params: { toolRequestId: string } } | { id: number; method: string; params: { toolRequestId: string } }[];
    for (const f of Array.isArray(parsed) ? parsed : [parsed]) {
      if (f.method === "create_session") {
        const info = { sessionId: "s_1", provider: "script", status: "running", seq: 0, tools: ["bench_echo"], autoEndOnDisconnect: true };
        setImmediate(() => this.socket.deliver(JSON.stringify({ type: "response", id: f.id, ok: true, result: info })));
      } else if (f.method === "submit_tool_result") {
        setImmediate(() => {
          this.socket.deliver(
            JSON.stringify([
              this.event("tool_call_settled", { toolRequestId: f.params.toolRequestId, tool: "bench_echo", outcome: "result" }),
              this.event("status_changed", { status: "running", previousStatus: "waiting_tool_result" }),
              { type: "response", id: f.id, ok: true, result: {} },
            ]),
          );
          this.next();
        });
      }
    }
  }

  event(event: string, data: unknown) {
    return { type: "event", event, sessionId: "s_1", seq: ++this.seq, turnId: "t_1", data };
  }

  next() {
    if (this.left-- <= 0) return this.done();
    const toolRequestId = `tr_${this.seq}`;
    this.socket.deliver(
      JSON.stringify([
        this.event("status_changed", { status: "waiting_tool_result", previousStatus: "running", waitingOn: [{ toolRequestId, tool: "bench_echo" }] }),
        this.event("tool_call", { toolRequestId, tool: "bench_echo", args: { n: 1, pad: "" }, timeoutMs: 60_000, deadline: Date.now() + 60_000, turnStartedAt: 1 }),
      ]),
    );
  }
}

class BenchSocket implements SocketLike {
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  constructor(private readonly core: BenchCore) {
    setImmediate(() => {
      this.readyState = 1;
      this.onopen?.({});
      this.deliver(JSON.stringify({ type: "hello", batch: true, maxBatchFrames: 64, maxMessageBytes: 1 << 20 }));
    });
  }
  deliver(data: string) {
    this.onmessage?.({ data });
  }
  send(data: string) {
    this.core.receive(data);
  }
  close() {}
}

const core = new BenchCore();
// socketFactory and probe are internal options (the unit tests use them too).
const pedelec = new Pedelec({ url: "ws://127.0.0.1:1/ws", socketFactory: () => (core.socket = new BenchSocket(core)), probe: async () => true } as never);
const session = await pedelec.createSession({
  provider: "script",
  skills: {
    guidance: "Benchmark.",
    tools: [{ name: "bench_echo", description: "Answer with the arguments.", argsSchema: { type: "object", properties: { n: { type: "integer" } }, required: [] }, handler: (args: unknown) => args }],
  },
});

async function run(calls: number): Promise<number> {
  core.left = calls;
  const finished = new Promise<void>((resolve) => (core.done = resolve));
  const before = process.cpuUsage();
  core.next();
  await finished;
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

await run(5_000); // warm: JIT
const runs: number[] = [];
for (let i = 0; i < 5; i++) runs.push(await run(20_000));
runs.sort((a, b) => a - b);
console.log(`SDK JavaScript per tool call (Node ${process.version}, fake Core included): median ${runs[2]!.toFixed(1)} µs CPU, least ${runs[0]!.toFixed(1)} µs (5 runs of 20,000 calls)`);
if (session.getStatus() !== "running") throw new Error(`session ended up ${session.getStatus()}`);
