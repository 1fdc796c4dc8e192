import { describe, expect, it } from 'vitest';
import { ArrivingBody } from '../../server/providers/upstream-exchange.js';

function bodyWithFlow() {
  const flow = { paused: 0, resumed: 0, aborted: [] as Error[] };
  const body = new ArrivingBody({ pause: () => flow.paused++, resume: () => flow.resumed++, abort: (reason) => flow.aborted.push(reason) });
  return { body, flow };
}

const piece = (i: number) => Buffer.from(`piece ${i}`);

describe('ArrivingBody', () => {
  it('hands chunks over in order, to a reader waiting and to one that comes later, then ends', async () => {
    const { body } = bodyWithFlow();
    const first = body.next();
    body.push(piece(0));
    body.push(piece(1));
    body.end();
    expect((await first).value).toEqual(piece(0));
    expect((await body.next()).value).toEqual(piece(1));
    expect(await body.next()).toEqual({ value: undefined, done: true });
    expect(body.complete).toBe(true);
  });

  it('pauses an upstream that gets ahead of its reader, and resumes it once the reader catches up', async () => {
    const { body, flow } = bodyWithFlow();
    for (let i = 0; i < 20; i++) body.push(piece(i));
    expect(flow.paused).toBeGreaterThan(0);
    expect(flow.resumed).toBe(0);
    const read: Buffer[] = [];
    for (let i = 0; i < 12; i++) read.push((await body.next()).value as Buffer);
    expect(flow.resumed).toBe(1);
    body.end();
    for await (const chunk of body) read.push(chunk);
    expect(read).toEqual(Array.from({ length: 20 }, (_, i) => piece(i)));
  });

  it('rejects the reader with the error that cut the body, whether it waits already or comes after', async () => {
    const { body } = bodyWithFlow();
    const waiting = body.next();
    body.fail(new Error('socket closed'));
    await expect(waiting).rejects.toThrow('socket closed');
    await expect(body.next()).rejects.toThrow('socket closed');
  });

  it('cuts a body still arriving when its reader stops, and lets one that has arrived go', async () => {
    const arriving = bodyWithFlow();
    arriving.body.push(piece(0));
    for await (const _chunk of arriving.body) break;
    expect(arriving.flow.aborted).toHaveLength(1);
    const arrived = bodyWithFlow();
    arrived.body.push(piece(0));
    arrived.body.end();
    for await (const _chunk of arrived.body) break;
    expect(arrived.flow.aborted).toHaveLength(0);
  });
});
