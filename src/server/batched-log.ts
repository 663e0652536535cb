import type { DestinationStream } from 'pino';

/** What the batch writes into: pino's destination (sonic-boom). */
export type Destination = DestinationStream & { flush(done?: (error?: Error) => void): void; flushSync(): void };

/** Characters held before they are written at once, whatever the turn of the event loop. */
const BATCH_CHARS = 16 * 1024;

/**
 * The server's log destination: every line (pino's and the request lines, in the order they were logged)
 * is held until the end of the current turn of the event loop (`setImmediate`) and handed to sonic-boom
 * as one string. Line by line, sonic-boom measured the UTF-8 length of its whole growing buffer on every
 * write, flattening it each time: about 3 µs of CPU per request under the bench's load (ADR 0033).
 * What reaches sonic-boom is then buffered, written and flushed exactly as before (at 16 KiB, every second,
 * on SIGHUP and at shutdown); `flush` and `flushSync` hand over what is held first.
 */
export class BatchedLog {
  readonly #inner: Destination;
  #held: string[] = [];
  #chars = 0;
  #scheduled = false;
  readonly #handOverSoon = () => {
    this.#scheduled = false;
    this.#handOver();
  };

  constructor(inner: Destination) {
    this.#inner = inner;
  }

  write(text: string): boolean {
    this.#held.push(text);
    this.#chars += text.length;
    if (this.#chars >= BATCH_CHARS) this.#handOver();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#handOverSoon);
    }
    return true;
  }

  /** Writes everything held and buffered, then calls `done` (pino's `logger.flush`). */
  flush(done?: (error?: Error) => void): void {
    this.#handOver();
    this.#inner.flush(done);
  }

  /** The same, synchronously (pino's final flush on a fatal error). */
  flushSync(): void {
    this.#handOver();
    this.#inner.flushSync();
  }

  #handOver(): void {
    if (this.#held.length === 0) return;
    const text = this.#held.length === 1 ? (this.#held[0] as string) : this.#held.join('');
    this.#held = [];
    this.#chars = 0;
    this.#inner.write(text);
  }
}
