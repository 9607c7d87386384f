// Reconnecting after Core went away (restarted, crashed, upgraded) or the
// page's connection dropped: retry with exponential backoff and jitter
// until every session is resumed or has ended, or until giveUpAfterMs.

export type ReconnectOptions = {
  /** First retry delay. */
  initialDelayMs: number;
  /** Longest delay between retries. */
  maxDelayMs: number;
  /** Stop trying after this long without success (Core's resume window is 10 minutes by default). */
  giveUpAfterMs: number;
};

export const DEFAULT_RECONNECT: ReconnectOptions = { initialDelayMs: 250, maxDelayMs: 5_000, giveUpAfterMs: 10 * 60_000 };

/**
 * Whether a reconnect attempt that failed with e should simply be tried
 * again: Core is still away (CORE_UNREACHABLE), too busy to answer in
 * time (SDK_BRIDGE_TIMEOUT), or the socket failed while Core was down and
 * the HTTP probe that followed found the new Core already up, which the
 * connection reads as a refused origin (ORIGIN_NOT_ALLOWED with
 * details.inferred): Core restarting is exactly when that race happens.
 * Anything else is an answer, and the attempt ends with it.
 */
export function worthRetrying(e: { code: string; details?: unknown }): boolean {
  // CORE_NOT_AUTHENTIC: another program holds Core's port; the real Core may come back to it.
  if (e.code === "CORE_UNREACHABLE" || e.code === "SDK_BRIDGE_TIMEOUT" || e.code === "CORE_NOT_AUTHENTIC") return true;
  const details = e.details as { inferred?: unknown } | undefined;
  return e.code === "ORIGIN_NOT_ALLOWED" && details?.inferred === true;
}

/** One try: "done" when nothing is left to resume, "retry" when Core is still away. */
export type ReconnectAttempt = (attempt: number) => Promise<"done" | "retry">;

export class Reconnector {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private startedAt = 0;
  private attempt = 0;

  constructor(
    private readonly tryOnce: ReconnectAttempt,
    private readonly onGiveUp: () => void,
    private readonly opts: ReconnectOptions = DEFAULT_RECONNECT,
  ) {}

  /** Starts retrying unless already retrying. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.startedAt = Date.now();
    this.attempt = 0;
    this.schedule();
  }

  /** The delay before the next try. */
  nextDelay(): number {
    const base = Math.min(this.opts.maxDelayMs, this.opts.initialDelayMs * 2 ** Math.min(this.attempt, 16));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = false;
  }

  private schedule() {
    const delay = this.nextDelay();
    this.timer = setTimeout(() => void this.run(), delay);
  }

  private async run() {
    if (!this.running) return;
    this.attempt++;
    let outcome: "done" | "retry" = "retry";
    try {
      outcome = await this.tryOnce(this.attempt);
    } catch {
      outcome = "retry";
    }
    if (!this.running) return;
    if (outcome === "done") {
      this.running = false;
      return;
    }
    if (Date.now() - this.startedAt >= this.opts.giveUpAfterMs) {
      this.running = false;
      this.onGiveUp();
      return;
    }
    this.schedule();
  }
}
