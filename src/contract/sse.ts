/**
 * Server-sent events, the wire format every streamed answer travels in (chat completions,
 * Responses and Messages streams, and the upstreams' own): one module that the server writes and
 * parses upstreams with, and the client reads with.
 */

/** One event as written: `event` names it (Responses and Messages streams), `data` is already JSON text. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** One event as read from a stream. */
export interface ServerSentEvent {
  event: string | null;
  data: string;
}

export function formatEvent(event: SseEvent): string {
  return `${event.event ? `event: ${event.event}\n` : ''}data: ${event.data}\n\n`;
}

/**
 * Parses a text/event-stream body into events (the WHATWG rules: `data:` lines joined with
 * newlines, `event:` names the next dispatch, comments and unknown fields ignored).
 */
export async function* parseEventStream(body: AsyncIterable<Buffer | string>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n') };
        event = null;
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
    }
  }
  if (data.length > 0) yield { event, data: data.join('\n') };
}
