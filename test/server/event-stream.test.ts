import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cancellation } from '../../server/cancellation.js';
import { writeStream } from '../../server/http/event-stream.js';
import { SseReply, type SseEvent } from '../../server/streams.js';

/**
 * When a stream's headers leave: with its first event when that comes within this turn's
 * immediates (a SQLite settlement is written in one), saving a socket write; on their own when it
 * does not come soon, since the client waits on them.
 */

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** A server that answers every request with `events`, and the flushHeaders calls of its responses. */
async function serve(events: () => AsyncIterable<SseEvent>) {
  const flushed: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    const flush = res.flushHeaders.bind(res);
    vi.spyOn(res, 'flushHeaders').mockImplementation(() => {
      flushed.push(res);
      flush();
    });
    void writeStream(res, new SseReply(events()), new Cancellation().signal);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, flushed };
}

describe('writeStream', () => {
  it('sends the headers with a first event that comes in an immediate queued after the stream began', async () => {
    const { url, flushed } = await serve(async function* () {
      await new Promise((resolve) => setImmediate(resolve));
      yield { data: 'first' };
    });
    const response = await fetch(url);
    expect(await response.text()).toBe('data: first\n\n');
    expect(flushed).toHaveLength(0);
  });

  it('sends the headers alone when the first event is not coming soon: the client has them while it waits', async () => {
    let release = () => {};
    const { url, flushed } = await serve(async function* () {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      yield { data: 'late' };
    });
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(flushed).toHaveLength(1);
    release();
    expect(await response.text()).toBe('data: late\n\n');
  });
});
