// Events carry a per-session seq that only increases, across reconnects.
// An event whose seq is not larger than the last one handled is a replay
// (or arrived twice) and is dropped, so no handler runs twice.

export class SeqGate {
  constructor(private last = 0) {}

  /** True when the event is new; it then becomes the last one seen. */
  admit(seq: number): boolean {
    if (typeof seq !== "number" || !Number.isFinite(seq) || seq <= this.last) return false;
    this.last = seq;
    return true;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** Moves forward without handling (after a resume told us the current seq). */
  advanceTo(seq: number): void {
    if (seq > this.last) this.last = seq;
  }
}
