import type { Disposer } from "./types.js";

/**
 * A set of listeners whose exceptions never reach the SDK's event loop:
 * one broken listener must not stop the others, or the session. A listener
 * receives the original's two arguments: the value and its context.
 */
export class Emitter<A extends unknown[]> {
  private readonly listeners = new Set<(...args: A) => void>();

  add(listener: (...args: A) => void): Disposer {
    if (typeof listener !== "function") throw new TypeError("Pedelec: a listener must be a function");
    // Wrapped so the same function added twice is two registrations,
    // each removed by its own disposer.
    const entry = (...args: A) => listener(...args);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(...args: A): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(...args);
      } catch (err) {
        reportListenerError(err);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}

function reportListenerError(err: unknown) {
  // Rethrown on a fresh task: the browser reports it as an uncaught error
  // (visible in the console, seen by error trackers) without unwinding us.
  setTimeout(() => {
    throw err;
  }, 0);
}
