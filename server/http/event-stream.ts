import type { ServerResponse } from 'node:http';
import { formatEvent } from '../../src/contract/sse.js';
import type { CancelSignal } from '../cancellation.js';
import { eventsOf, type SseReply } from '../streams.js';

/** Until `res` drains, or its client goes (`closed`): a slow reader holds the stream back, a gone one ends it. */
function drained(res: ServerResponse, closed: CancelSignal): Promise<void> {
  if (closed.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      closed.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    closed.addEventListener('abort', done);
  });
}

/**
 * Writes a stream of server-sent events; a client that goes away (`closed`) ends the iteration
 * early, also while a write waits for the socket to drain.
 */
export async function writeStream(res: ServerResponse, reply: SseReply, closed: CancelSignal): Promise<void> {
  // No `connection` header of our own: node keeps the connection alive when the client allows
  // it, and closes it after the stream when the client asked so (a forced keep-alive would hold
  // its slot instead).
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  const iterator = reply.events[Symbol.asyncIterator]();
  // Headers go with the first event when it is ready by the end of this turn's immediates, saving
  // a socket write: most streams' first event is awaited before the answer starts, and a short
  // answer whose whole body came in one piece waits for its settlement, which a SQLite store
  // writes in an immediate queued after this one (so headers wait one immediate more). Else they
  // go on their own, since a stream may wait long for its first event (a resumed background
  // response follows a run that has not written its next event yet) and its client waits on them.
  let flushHeaders = setImmediate(() => {
    flushHeaders = setImmediate(() => res.flushHeaders());
  });
  // Events that arrive in one turn of the event loop (one upstream packet, or several read
  // together) leave in one socket write, at the turn's end (setImmediate, not nextTick: the
  // upstream body's end comes a tick after its last events, so a stream's last events, its
  // end and the chunked terminator go out in the same write: end() uncorks).
  let uncork: NodeJS.Immediate | null = null;
  const uncorkNow = () => {
    uncork = null;
    res.uncork();
  };
  try {
    while (!res.destroyed) {
      const next = await iterator.next();
      clearImmediate(flushHeaders);
      if (next.done) break;
      if (uncork === null) {
        res.cork();
        uncork = setImmediate(uncorkNow);
      }
      // drained() removes its listeners whichever way the wait ends: a long stream to a slow reader
      // waits thousands of times on the same response.
      if (!res.write(eventsOf(next.value).map(formatEvent).join(''))) await drained(res, closed);
    }
  } finally {
    clearImmediate(flushHeaders);
    // Lets the producer settle what it has produced, whether the stream ended or was cut.
    await iterator.return?.();
    // end() uncorks whatever is corked; a later uncork could only reach the next response on this connection.
    if (uncork !== null) clearImmediate(uncork);
    res.end();
  }
}
