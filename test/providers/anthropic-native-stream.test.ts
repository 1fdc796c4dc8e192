import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { createNativeMessages } from '../../server/providers/anthropic/native.js';
import { createUpstream } from '../../server/providers/upstream.js';

/**
 * A relayed Anthropic stream ends in one of two ways the client can tell apart: whole (up to
 * message_stop) or failed. An error event in place of the first event is a failed attempt that
 * another route target may answer; a body cut before message_stop is an error, never a clean end.
 */
const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const START = sse('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude', usage: { input_tokens: 3, output_tokens: 1 } } });
const TEXT = sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) + sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } });
const STOP = sse('content_block_stop', { index: 0 }) + sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }) + sse('message_stop', {});
const OVERLOADED = sse('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });

const bodies: Record<string, string> = {
  whole: START + TEXT + STOP,
  cut: START + TEXT,
  'error-first': OVERLOADED,
  'error-later': START + TEXT + OVERLOADED,
};

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const scenario = (JSON.parse(body) as { metadata: { user_id: string } }).metadata.user_id;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(bodies[scenario]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function relay(scenario: string) {
  const native = createNativeMessages(createUpstream({ provider: 'anthropic', baseUrl: url, headers: { 'x-api-key': 'k' } }), '2023-06-01');
  const events: string[] = [];
  const call = { model: 'claude', body: { max_tokens: 10, messages: [], metadata: { user_id: scenario } }, headers: {}, signal: new AbortController().signal };
  try {
    for await (const batch of native.stream(call as Parameters<typeof native.stream>[0])) events.push(...batch.map((event) => event.event));
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

describe('a relayed Anthropic stream', () => {
  it('passes a whole stream through, up to message_stop', async () => {
    const { events, error } = await relay('whole');
    expect(error).toBeNull();
    expect(events.at(0)).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
  });

  it('fails a body cut before message_stop, after relaying what came', async () => {
    const { events, error } = await relay('cut');
    expect(events).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('upstream_bad_response');
  });

  it('fails an error in place of the first event (another target may answer), with its message', async () => {
    const { events, error } = await relay('error-first');
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toContain('Overloaded');
  });

  it('relays an error after the first event as Anthropic sent it, and adds no second one', async () => {
    const { events, error } = await relay('error-later');
    expect(events).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'error']);
    expect(error).toBeNull();
  });
});
