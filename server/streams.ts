import type { SseEvent } from '../src/contract/sse.js';

/** Events that arrived together (one piece of an upstream's body): they leave in one write, for one step of each stream layer. */
export type SseBatch = readonly SseEvent[];

/**
 * What a service returns to answer with a stream: the events, as an async iterable of events and
 * batches of them. The HTTP layer writes it (server/http/event-stream.ts); services never see the
 * response.
 */
export class SseReply {
  constructor(readonly events: AsyncIterable<SseEvent | SseBatch>) {}
}

/** The events of one step of a stream, one or a batch. */
export const eventsOf = (step: SseEvent | SseBatch): SseBatch => (Array.isArray(step) ? step : [step as SseEvent]);

export type { SseEvent };
