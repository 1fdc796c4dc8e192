import type { Dispatcher } from 'undici';
import { abortReason, type CancelSignal } from '../cancellation.js';

/**
 * One HTTP exchange with an upstream on undici's dispatcher, its body handed over chunk by chunk:
 * what `request()` does, without a Readable stream, a promise wrapper and an async resource per
 * answer (every metered request makes one exchange; the bare proxy of the benchmark does the same).
 */

/** Chunks held before the upstream is paused (a reader slower than the upstream). */
const HIGH_WATER_CHUNKS = 16;

/** A response's body as it arrives: its chunks in order, then its end, or the error that cut it. */
export class ArrivingBody implements AsyncIterableIterator<Buffer> {
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private error: Error | null = null;
  private waiting: { resolve: (result: IteratorResult<Buffer>) => void; reject: (error: Error) => void } | null = null;

  constructor(private readonly flow: { pause(): void; resume(): void; abort(reason: Error): void }) {}

  /** Whether the whole body has arrived (what is left of it is held here). */
  get complete(): boolean {
    return this.ended;
  }

  push(chunk: Buffer): void {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = null;
      waiting.resolve({ value: chunk, done: false });
      return;
    }
    this.chunks.push(chunk);
    if (this.chunks.length >= HIGH_WATER_CHUNKS) this.flow.pause();
  }

  end(): void {
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ value: undefined, done: true });
  }

  fail(error: Error): void {
    this.error = error;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.chunks.shift();
    if (chunk) {
      if (this.chunks.length === HIGH_WATER_CHUNKS / 2) this.flow.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.error) return Promise.reject(this.error);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** A reader that stops early: a body still arriving is cut (its connection closes), one that has arrived is let go. */
  return(): Promise<IteratorResult<Buffer>> {
    if (!this.ended && !this.error) this.flow.abort(new Error('the reader stopped before the end of the body'));
    this.chunks.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The whole body as text (an error answer's). */
  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }
}

export interface Exchanged {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: ArrivingBody;
}

/**
 * Sends `options` on `dispatcher`; resolves with the status, headers and arriving body once the
 * headers are in, or rejects with undici's error (a connect or headers timeout, a refused
 * connection) or, once `signal` aborts, its reason. An abort later cuts the body with it.
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: CancelSignal): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | null = null;
    let body: ArrivingBody | null = null;
    const onAbort = () => controller?.abort(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    dispatcher.dispatch(options, {
      onRequestStart(started) {
        controller = started;
        if (signal.aborted) started.abort(abortReason(signal));
      },
      onResponseStart(started, statusCode, headers) {
        // An informational answer (100 Continue) comes before the real one.
        if (statusCode < 200) return;
        body = new ArrivingBody({ pause: () => started.pause(), resume: () => started.resume(), abort: (reason) => started.abort(reason) });
        resolve({ status: statusCode, headers: headers as Exchanged['headers'], body });
      },
      onResponseData(_controller, chunk) {
        body?.push(chunk);
      },
      onResponseEnd() {
        done();
        body?.end();
      },
      onResponseError(_controller, error) {
        done();
        if (body) body.fail(error);
        else reject(error);
      },
    });
  });
}
