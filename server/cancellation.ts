/**
 * What the server's work reads of a cancellation (a client that went away): the part of
 * AbortSignal it uses, so that a request's own can be a plain object. An AbortController and its
 * listener cost about 5.5 µs a request here, more than the rest of its bookkeeping; a real
 * AbortSignal (a background response's, a test's) fits this as well.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Why `signal` aborted, as an Error (what undici's abort and a throw take). */
export const abortReason = (signal: CancelSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));

/** A request's cancellation: its signal, and `cancel`, which fires it once with the reason an AbortController's abort() gives. */
export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | null = null;

  get signal(): CancelSignal {
    return this;
  }

  cancel(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    // Each once, in order, as an abort event reaches them: one removed by a listener before it is
    // not called, one added meanwhile is not either (the signal has aborted), and one that throws
    // does not keep the rest from theirs (its error is thrown on its own, as EventTarget does).
    const listeners = this.listeners;
    while (listeners && listeners.length > 0) {
      const listener = listeners.shift() as () => void;
      try {
        listener();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.listeners = null;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners?.splice(at, 1);
  }
}
