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
 * A text/event-stream parser fed piece by piece (the WHATWG rules: `data:` lines joined with
 * newlines, `event:` names the next dispatch, comments and unknown fields ignored): `push` gives
 * the events a piece completes, `end` those the end of the body completes. Lines are found with
 * indexOf, and CR line ends looked for only in a piece that has a CR: every streamed answer
 * passes here, and a relay takes the events of one piece together.
 */
export function eventStreamParser() {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string | null = null;
  // Whether the decoder may hold the first bytes of a character cut at the end of the last piece.
  let cut = false;
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
  /** The event read so far, dispatched (none without data), and the next one begun. */
  const dispatch = (events: ServerSentEvent[]) => {
    if (data !== null) events.push({ event, data });
    event = null;
    data = null;
  };
  return {
    push(piece: Buffer | string): ServerSentEvent[] {
      if (typeof piece === 'string') buffer += piece;
      else if (!cut && (piece.length === 0 || (piece[piece.length - 1] as number) < 0x80)) {
        // A piece that ends in ASCII ends whole: decoded at once (a streaming decode costs three times more).
        buffer += piece.toString('utf8');
      } else {
        buffer += decoder.decode(piece, { stream: true });
        cut = piece.length === 0 ? cut : (piece[piece.length - 1] as number) >= 0x80;
      }
      const events: ServerSentEvent[] = [];
      const mayHaveCr = buffer.includes('\r');
      let start = 0;
      let line: [number, number] | null;
      while ((line = lineEnd(buffer, start, mayHaveCr)) !== null) {
        const blank = read(buffer.slice(start, line[0]));
        start = line[1];
        if (blank) dispatch(events);
      }
      buffer = buffer.slice(start);
      return events;
    },
    end(): ServerSentEvent[] {
      // A CR held back as possibly half a CRLF ended its line after all; data left without a blank line is dispatched.
      if (buffer.endsWith('\r')) read(buffer.slice(0, -1));
      buffer = '';
      const events: ServerSentEvent[] = [];
      dispatch(events);
      return events;
    },
  };
}

/**
 * A text/event-stream body as its events, those each piece of it completes together (a piece that
 * completes none gives nothing): how a relay passes on what arrived together in one step.
 */
export async function* eventBatches(body: AsyncIterable<Buffer | string>): AsyncGenerator<ServerSentEvent[]> {
  const parser = eventStreamParser();
  for await (const piece of body) {
    const events = parser.push(piece);
    if (events.length > 0) yield events;
  }
  const last = parser.end();
  if (last.length > 0) yield last;
}

/** A text/event-stream body as its events, one at a time. */
export async function* parseEventStream(body: AsyncIterable<Buffer | string>): AsyncGenerator<ServerSentEvent> {
  for await (const events of eventBatches(body)) yield* events;
}
