import { describe, expect, it } from 'vitest';
import { abortReason, Cancellation } from '../../server/cancellation.js';

/** A request's cancellation (server/cancellation.ts) behaves as an AbortController's signal does, where the server reads it. */
describe('a request’s cancellation', () => {
  it('fires its listeners once, in order, with the reason an AbortController gives, and then throws it', () => {
    const cancellation = new Cancellation();
    const { signal } = cancellation;
    const heard: string[] = [];
    const second = () => heard.push('second');
    signal.addEventListener('abort', () => heard.push('first'));
    signal.addEventListener('abort', second);
    signal.addEventListener('abort', () => heard.push('third'), { once: true });
    signal.removeEventListener('abort', second);
    expect(signal.aborted).toBe(false);
    expect(() => signal.throwIfAborted()).not.toThrow();

    cancellation.cancel();
    cancellation.cancel();
    expect(heard).toEqual(['first', 'third']);
    expect(signal.aborted).toBe(true);

    const controller = new AbortController();
    controller.abort();
    const [ours, theirs] = [signal.reason, controller.signal.reason] as [DOMException, DOMException];
    expect([ours.name, ours.message, ours instanceof DOMException]).toEqual([theirs.name, theirs.message, true]);
    expect(() => signal.throwIfAborted()).toThrow(ours);
    expect(abortReason(signal)).toBe(ours);

    // A listener added once it has fired is never called, as an AbortSignal's is not.
    signal.addEventListener('abort', () => heard.push('late'));
    cancellation.cancel();
    expect(heard).toEqual(['first', 'third']);
  });

  it('as an abort event goes: a listener removed by one before it is not called, and one that throws does not stop the rest', async () => {
    const cancellation = new Cancellation();
    const { signal } = cancellation;
    const heard: string[] = [];
    const third = () => heard.push('third');
    signal.addEventListener('abort', () => {
      heard.push('first');
      signal.removeEventListener('abort', third);
    });
    signal.addEventListener('abort', () => {
      throw new Error('a listener failed');
    });
    signal.addEventListener('abort', third);
    signal.addEventListener('abort', () => heard.push('fourth'));
    const thrown = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    cancellation.cancel();
    expect(heard).toEqual(['first', 'fourth']);
    // Thrown on its own, as EventTarget throws a listener's error.
    expect(await thrown).toEqual(new Error('a listener failed'));
  });

  it('a real AbortSignal fits where the server takes one, and its reason reads the same way', () => {
    const controller = new AbortController();
    controller.abort('not an error');
    expect(abortReason(controller.signal)).toEqual(new Error('aborted'));
  });
});
