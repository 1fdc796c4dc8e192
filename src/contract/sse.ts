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

/** Where the line that starts at `from` ends, and where the next one starts; null when it has not ended yet. */
function lineEnd(buffer: string, from: number, mayHaveCr: boolean): [end: number, next: number] | null {
  const lf = buffer.indexOf('\n', from);
  if (!mayHaveCr) return lf < 0 ? null : [lf, lf + 1];
  const cr = buffer.indexOf('\r', from);
  if (cr < 0 || (lf >= 0 && lf < cr)) return lf < 0 ? null : [lf, lf + 1];
  // A CR last in what has arrived may be the first half of a CRLF: its line ends with the next piece.
  if (cr === buffer.length - 1) return null;
  return [cr, buffer.charCodeAt(cr + 1) === 0x0a ? cr + 2 : cr + 1];
}

/**
 * Parses a text/event-stream body into events (the WHATWG rules: `data:` lines joined with
 * newlines, `event:` names the next dispatch, comments and unknown fields ignored). Lines are
 * found with indexOf, and CR line ends looked for only in a piece that has a CR: every streamed
 * answer passes here.
 */
export async function* parseEventStream(body: AsyncIterable<Buffer | string>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string | null = null;
  /** Reads one line; true when it is the blank line that dispatches the event. */
  const read = (line: string): boolean => {
    if (line === '') return true;
    if (line.charCodeAt(0) === 0x3a) return false;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    if (field === 'data') data = data === null ? value : `${data}\n${value}`;
    else if (field === 'event') event = value;
    return false;
  };
  // Whether the decoder may hold the first bytes of a character cut at the end of the last piece.
  let cut = false;
  for await (const chunk of body) {
    if (typeof chunk === 'string') buffer += chunk;
    else if (!cut && (chunk.length === 0 || (chunk[chunk.length - 1] as number) < 0x80)) {
      // A piece that ends in ASCII ends whole: decoded at once (a streaming decode costs three times more).
      buffer += chunk.toString('utf8');
    } else {
      buffer += decoder.decode(chunk, { stream: true });
      cut = chunk.length === 0 ? cut : (chunk[chunk.length - 1] as number) >= 0x80;
    }
    const mayHaveCr = buffer.includes('\r');
    let start = 0;
    let line: [number, number] | null;
    while ((line = lineEnd(buffer, start, mayHaveCr)) !== null) {
      const blank = read(buffer.slice(start, line[0]));
      start = line[1];
      if (!blank) continue;
      if (data !== null) yield { event, data };
      event = null;
      data = null;
    }
    buffer = buffer.slice(start);
  }
  // A CR held back as possibly half a CRLF ended its line after all.
  if (buffer.endsWith('\r')) read(buffer.slice(0, -1));
  if (data !== null) yield { event, data };
}
