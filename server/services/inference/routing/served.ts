import type { ResolvedModel } from '../../../providers/registry.js';
import type { Meter } from '../meter.js';
import { servedHeaders, unservedBy, type Routing, type Served, type TargetPlan } from './runner.js';
import type { CancelSignal } from '../../../cancellation.js';

/** Sets a header on the answer, while it has not been sent (a background response's has). */
export type AnswerHeader = (name: string, value: string) => void;

/**
 * Runs a metered request over its plan: the meter (already holding for the dearest target) is
 * settled at no cost when no target answers (the row naming the last one tried), else told which
 * target answered; the answer's
 * headers say which targets were tried (`x-svc-route`, `x-svc-attempts`).
 */
export async function serveMetered<T>(
  routing: Routing,
  plan: TargetPlan,
  meter: Meter,
  signal: CancelSignal,
  answerHeader: AnswerHeader | undefined,
  attempt: (target: ResolvedModel) => Promise<T>,
): Promise<Served<T>> {
  let served: Served<T>;
  try {
    served = await routing.run(plan, signal, attempt);
  } catch (error) {
    // The usage row of a request no target answered names the last one tried, and every try.
    const tried = unservedBy(error);
    if (tried?.last) meter.serve(tried.last.entry, tried.failed);
    await meter.failed(error, signal);
    throw error;
  }
  meter.serve(served.target.entry, served.failed);
  for (const [name, value] of Object.entries(servedHeaders(plan, served.failed, served.target.entry.id))) answerHeader?.(name, value);
  return served;
}

/**
 * A stream once its first event has arrived: an upstream that fails before it (refused, down,
 * an error event in place of an answer) throws here, where another target can still be tried;
 * after it, the stream is the client's. Closing the returned stream closes the upstream's.
 */
export async function firstEventOf<T>(events: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    try {
      if (first.done) return;
      yield first.value;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  })();
}
