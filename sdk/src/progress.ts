import { PedelecError } from "./errors.js";
import type { ToolProgress } from "./types.js";

/** At most four reports a second per call reach Core; the last one wins. */
export const PROGRESS_EVERY_MS = 250;

/**
 * @internal The ctx.progress of one call (issue 26): checks each report,
 * and passes the latest on at most every PROGRESS_EVERY_MS, so a handler
 * that reports in a tight loop costs one frame per interval. A report in
 * between replaces the one waiting; stop() drops it (the result follows).
 */
export function progressReporter(send: (p: ToolProgress) => void): { report: (p: ToolProgress) => void; stop: () => void } {
  let last = -Infinity;
  let waiting: ToolProgress | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const flush = () => {
    timer = undefined;
    if (stopped || !waiting) return;
    const p = waiting;
    waiting = undefined;
    last = Date.now();
    send(p);
  };
  return {
    report(p: ToolProgress) {
      const checked = checkProgress(p);
      if (stopped) return;
      waiting = checked;
      const wait = last + PROGRESS_EVERY_MS - Date.now();
      if (wait <= 0) flush();
      else if (timer === undefined) timer = setTimeout(flush, wait);
    },
    stop() {
      stopped = true;
      waiting = undefined;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** A report as Core takes it, or an INVALID_INPUT naming the bad field. */
function checkProgress(p: ToolProgress): ToolProgress {
  if (p === null || typeof p !== "object") throw new PedelecError("INVALID_INPUT", "ctx.progress takes an object: { progress, total?, message? }");
  const { progress, total, message } = p;
  if (typeof progress !== "number" || !Number.isFinite(progress) || progress < 0) {
    throw new PedelecError("INVALID_INPUT", `ctx.progress: progress must be a finite number >= 0, got ${String(progress)}`, { path: "progress" });
  }
  if (total !== undefined && (typeof total !== "number" || !Number.isFinite(total) || total < 0)) {
    throw new PedelecError("INVALID_INPUT", `ctx.progress: total must be a finite number >= 0 or absent, got ${String(total)}`, { path: "total" });
  }
  if (message !== undefined && typeof message !== "string") {
    throw new PedelecError("INVALID_INPUT", "ctx.progress: message must be a string", { path: "message" });
  }
  const out: ToolProgress = { progress };
  if (total !== undefined) out.total = total;
  // Core takes up to 1000 bytes (300 UTF-16 units stay under it); cut longer messages rather than lose the report.
  if (message !== undefined) out.message = message.length > 300 ? message.slice(0, 299) + "…" : message;
  return out;
}
