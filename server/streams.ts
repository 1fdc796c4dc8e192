import type { SseEvent } from '../src/contract/sse.js';

/**
 * What a service returns to answer with a stream: the events, as an async iterable. The HTTP
 * layer writes it (server/http/pipeline.ts); services never see the response.
 */
export class SseReply {
  constructor(readonly events: AsyncIterable<SseEvent>) {}
}

export type { SseEvent };
