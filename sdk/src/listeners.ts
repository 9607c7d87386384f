import type { Disposer, Listener } from "./types.js";

/**
 * A set of listeners whose exceptions never reach the SDK's event loop:
 * one broken listener must not stop the others, or the session.
 */
export class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();

  add(listener: Listener<T>): Disposer {
    if (typeof listener !== "function") throw new TypeError("Pedelec: a listener must be a function");
    // Wrapped so the same function added twice is two registrations,
    // each removed by its own disposer.
    const entry: Listener<T> = (ev) => listener(ev);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
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
