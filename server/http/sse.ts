/** One server-sent event; `event` names it (the Responses API), `data` is already JSON text. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** What a handler returns to answer with a stream; the pipeline writes it. */
export class SseReply {
  constructor(readonly events: AsyncIterable<SseEvent>) {}
}

export function formatEvent(event: SseEvent): string {
  return `${event.event ? `event: ${event.event}\n` : ''}data: ${event.data}\n\n`;
}
