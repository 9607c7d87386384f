// Tools and handlers: Core's tool_call events run the page's handlers,
// each with its deadline and its abort signal; the outcome goes back as
// submit_tool_result (through a reconnect if need be), progress as
// tool_progress; the page's tool list can change (update_tools).

import { keepAlive } from "../client/connection.js";
import type { ToolCallData, ToolCallSettledData } from "../client/protocol.gen.js";
import { PedelecError } from "../errors.js";
import { HandlerRegistry, type Outcome } from "../handlers.js";
import { progressReporter } from "../progress.js";
import { TOOL_NAME_PATTERN } from "../validate.js";
import type { AnyToolDefinition, GenericToolHandler, JsonValue, PendingTool, ToolCallContext, ToolProgress } from "../types.js";
import type { SessionState } from "./state.js";

type RunningCall = { tool: string; controller: AbortController; deadline: number };

type Handler = (args: unknown, ctx: ToolCallContext) => unknown;
/** Answers chosen calls another way than by their tool's handler (follow.ts: calls the previous page was running). */
export type CallRouter = (toolRequestId: string, tool: string) => Handler | undefined;

export class Calls {
  private readonly registry: HandlerRegistry;
  private readonly calls = new Map<string, RunningCall>();
  // One timer for the running calls' deadlines, armed for the earliest and
  // left armed when calls finish early (it then finds nothing to abort and
  // re-arms for the next), instead of a timer set and cleared per call.
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private deadlineAt = Infinity;
  private browserCalls = 0;

  constructor(
    private readonly s: SessionState,
    tools: readonly AnyToolDefinition[],
    private readonly router?: CallRouter,
  ) {
    this.registry = new HandlerRegistry(tools);
    s.onEnd((ended) => {
      for (const [, call] of this.calls) abortCall(call, ended);
      this.calls.clear();
      clearTimeout(this.deadlineTimer);
      this.deadlineTimer = undefined;
    });
  }

  /** The calls this page runs now, oldest first. */
  running(): PendingTool[] {
    return [...this.calls].map(([toolRequestId, call]) => ({ toolRequestId, tool: call.tool }));
  }

  /** waiting plus the calls this page runs that it does not name. */
  withRunning(waiting: PendingTool[]): PendingTool[] {
    const out = [...waiting];
    for (const [toolRequestId, call] of this.calls) {
      if (!out.some((p) => p.toolRequestId === toolRequestId)) out.push({ toolRequestId, tool: call.tool });
    }
    return out;
  }

  onTool(nameOrFallback: unknown, handler?: unknown): () => void {
    if (typeof nameOrFallback === "function") return this.registry.setFallback(nameOrFallback as GenericToolHandler);
    if (typeof nameOrFallback !== "string") {
      throw new PedelecError("INVALID_INPUT", "onTool: pass a tool name and a handler, or one fallback function (tool, args, ctx) => result");
    }
    if (!TOOL_NAME_PATTERN.test(nameOrFallback)) {
      throw new PedelecError(
        "INVALID_INPUT",
        `onTool: ${JSON.stringify(nameOrFallback)} is not a tool name: it must start with a letter and contain only letters, digits, "_", "." and "-" (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)`,
        { tool: nameOrFallback },
      );
    }
    if (typeof handler !== "function") {
      throw new PedelecError("INVALID_INPUT", `onTool(${JSON.stringify(nameOrFallback)}, handler): handler must be a function`, { tool: nameOrFallback });
    }
    return this.registry.setNamed(nameOrFallback, handler as Handler);
  }

  setDynamicHandlers(lookup: (tool: string) => Handler | undefined): void {
    this.registry.setDynamic(lookup);
  }

  /** Sends Core the session's whole new tool list; resolves with the names now in force. */
  async updateTools(tools: JsonValue[]): Promise<string[] | undefined> {
    const s = this.s;
    try {
      if (s.reconnected) await s.reconnected;
      const res = await s.connection.request("update_tools", { sessionId: s.sessionId, tools });
      return Array.isArray(res?.tools) ? res.tools : undefined;
    } catch (err) {
      const e = PedelecError.from(err);
      if (!s.ended) s.emitError(new PedelecError(e.code, `Core refused the page's new tool list: ${e.message}`, e.details), "sdk");
      throw e;
    }
  }

  /** Runs a tool's handler for the browser's own agent: no Core turn is behind it. */
  async runForBrowser(tool: string, input: unknown, signal: AbortSignal): Promise<JsonValue> {
    const now = Date.now();
    const ctx: ToolCallContext = {
      ...this.s.context("sdk"),
      type: "tool_call",
      toolRequestId: `webmcp_${++this.browserCalls}`,
      tool,
      turnId: "",
      turnStartedAt: now,
      eventReceivedAt: now,
      deadline: Number.MAX_SAFE_INTEGER,
      timeoutMs: 0,
      redelivered: false,
      signal,
    };
    const outcome = await this.registry.run(tool, input ?? {}, ctx);
    if (outcome.failure) throw new PedelecError(outcome.failure.code, outcome.failure.message, { tool });
    return outcome.result;
  }

  /** tool_call_settled: the call no longer waits for this page. */
  settled(data: ToolCallSettledData) {
    const s = this.s;
    s.waitingOn = s.waitingOn.filter((p) => p.toolRequestId !== data.toolRequestId);
    const call = this.calls.get(data.toolRequestId);
    if (!call || data.outcome === "result") return;
    abortCall(call, settledReason(data));
  }

  /**
   * Set as a page that follows its session unloads (follow.ts): a call
   * that arrives now is the next page's, which gets it from Core after
   * the last event recorded for it. Run here too, it would run twice.
   */
  unloading = false;

  /** tool_call: runs the call's handler and submits its outcome. */
  async dispatch(turnId: string, data: ToolCallData, eventReceivedAt: number) {
    const s = this.s;
    const { toolRequestId, tool } = data;
    if (this.unloading) return;
    // A redelivered call this page is still running is answered by that run.
    if (this.calls.has(toolRequestId)) return;
    const controller = new AbortController();
    const deadline = typeof data.deadline === "number" ? data.deadline : eventReceivedAt + (data.timeoutMs ?? 60_000);
    const call: RunningCall = { tool, controller, deadline };
    this.calls.set(toolRequestId, call);
    if (deadline < this.deadlineAt) this.watchDeadlines(deadline);
    else keepAlive(this.deadlineTimer, true);
    // Core names the calls it waits on only when its status changes; a
    // call that overlaps another is known here first.
    const waiting = s.waitingOn.some((p) => p.toolRequestId === toolRequestId)
      ? s.waitingOn
      : [...s.waitingOn, { toolRequestId, tool }];
    s.setStatus("waiting_tool_result", "sdk", waiting);

    const ctx: ToolCallContext = {
      ...s.context("core", eventReceivedAt, turnId || undefined),
      type: "tool_call",
      toolRequestId,
      tool,
      turnId,
      turnStartedAt: data.turnStartedAt,
      eventReceivedAt,
      deadline,
      timeoutMs: data.timeoutMs,
      redelivered: data.redelivered === true,
      signal: controller.signal,
    };
    const reporter = progressReporter((p) => this.sendProgress(toolRequestId, tool, p, turnId));
    ctx.progress = reporter.report;
    const outcome = await this.registry.run(tool, data.args, ctx, this.router?.(toolRequestId, tool)).finally(reporter.stop);
    if (this.calls.get(toolRequestId) === call) this.calls.delete(toolRequestId);
    if (this.calls.size === 0) keepAlive(this.deadlineTimer, false);
    s.waitingOn = s.waitingOn.filter((p) => p.toolRequestId !== toolRequestId);
    // A throw (TOOL_HANDLER_ERROR) or a missing handler
    // (TOOL_HANDLER_NOT_FOUND) is the agent's to hear, as a result; the
    // original keeps them from onError. A result that cannot be sent is a
    // submission failure there, and so here.
    if (outcome.failure?.code === "TOOL_RESULT_INVALID") {
      const cause = { code: outcome.failure.code, message: outcome.failure.message };
      s.emitError(new PedelecError("SUBMIT_TOOL_RESULT_FAILED", outcome.failure.message, { tool, toolRequestId, cause }), "sdk", undefined, turnId);
    }
    // The session ended while the handler ran: there is no one to answer.
    if (s.ended) return;
    await this.submit(toolRequestId, tool, outcome.result, turnId, outcome.refusal, outcome.content);
  }

  /** Sends one (rate-limited) progress report to Core and shows it to onStatus. */
  private sendProgress(toolRequestId: string, tool: string, p: ToolProgress, turnId: string) {
    const s = this.s;
    if (s.ended || !this.calls.has(toolRequestId)) return;
    // Fire and forget: a report that arrives after Core settled the call
    // (TOOL_REQUEST_NOT_PENDING) or on a dropped connection is moot.
    s.connection.request("tool_progress", { sessionId: s.sessionId, toolRequestId, ...p }).catch(() => {});
    s.emitStatusDetail("sdk", { progress: { ...p, toolRequestId, tool } }, undefined, turnId || undefined);
  }

  /** Arms the deadline timer for at, the earliest deadline of a running call. */
  private watchDeadlines(at: number) {
    clearTimeout(this.deadlineTimer);
    this.deadlineAt = at;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = undefined;
      this.deadlineAt = Infinity;
      const now = Date.now();
      let next = Infinity;
      for (const call of this.calls.values()) {
        if (call.deadline <= now) {
          if (!call.controller.signal.aborted) {
            call.controller.abort(new PedelecError("TOOL_TIMEOUT", `The deadline for ${call.tool} passed; Core no longer waits for its result`));
          }
        } else if (call.deadline < next) next = call.deadline;
      }
      if (next !== Infinity && !this.s.ended) this.watchDeadlines(next);
    }, Math.max(0, at - Date.now()));
  }

  private async submit(
    toolRequestId: string,
    tool: string,
    result: JsonValue,
    turnId: string,
    refusal?: Outcome["refusal"],
    mcpContent?: Outcome["content"],
  ): Promise<void> {
    const s = this.s;
    try {
      if (s.reconnected) await s.reconnected;
      const params = refusal
        ? { sessionId: s.sessionId, toolRequestId, refusal }
        : mcpContent
          ? { sessionId: s.sessionId, toolRequestId, mcpContent, result }
          : { sessionId: s.sessionId, toolRequestId, result };
      await s.connection.request("submit_tool_result", params);
    } catch (err) {
      const cause = PedelecError.from(err);
      if (cause.code === "CORE_UNREACHABLE" && !s.ended && s.reconnected) {
        // Lost on the way: Core keeps the call pending; answer it once resumed.
        await s.reconnected;
        if (!s.ended) return this.submit(toolRequestId, tool, result, turnId, refusal, mcpContent);
        return;
      }
      if (cause.code === "TOOL_RESULT_INVALID") {
        // The result breaks the tool's outputSchema: Core failed the call
        // for the agent; here it is the handler's bug, as a non-JSON value is.
        s.emitError(new PedelecError("TOOL_RESULT_INVALID", cause.message, { ...(cause.details as object), tool, toolRequestId }), "sdk", undefined, turnId);
        return;
      }
      if (cause.code === "MESSAGE_TOO_LARGE") {
        // Tell the agent instead of leaving it waiting until the deadline.
        const message = `The result of ${tool} is larger than Core accepts; return less data (page through it, or summarize)`;
        // The original's code for a result it could not deliver, the cause in details.
        s.emitError(new PedelecError("SUBMIT_TOOL_RESULT_FAILED", message, { tool, toolRequestId, cause: { code: "MESSAGE_TOO_LARGE", message } }), "sdk", undefined, turnId);
        return this.submit(toolRequestId, tool, { error: { code: "MESSAGE_TOO_LARGE", message } }, turnId);
      }
      if (s.ended) return;
      s.emitError(
        new PedelecError(
          "SUBMIT_TOOL_RESULT_FAILED",
          `Core refused the result of ${tool} (${toolRequestId}): ${cause.code}: ${cause.message}`,
          { tool, toolRequestId, cause: cause.toJSON() },
        ),
        "sdk",
        undefined,
        turnId,
      );
    }
  }
}

function abortCall(call: RunningCall, reason: PedelecError) {
  if (!call.controller.signal.aborted) call.controller.abort(reason);
}

/** Why a handler's signal aborts when Core settles its call without the page's result. */
function settledReason(data: ToolCallSettledData): PedelecError {
  switch (data.outcome) {
    case "timeout":
      return new PedelecError("TOOL_TIMEOUT", `Core stopped waiting for ${data.tool}: its timeout passed`);
    case "cancelled":
      return new PedelecError("TOOL_CALL_CANCELLED", `The agent cancelled its call to ${data.tool}`);
    case "interrupted":
      return new PedelecError("TURN_INTERRUPTED", `Core stopped while ${data.tool} ran; the call was not answered`);
    default:
      return new PedelecError("SESSION_ENDED", `The call to ${data.tool} was settled by Core (${data.outcome})`);
  }
}
