import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { O200K } from '../../server/providers/tokenizer.js';
import type { UsageEvent } from '../../server/store/types.js';
import { API, createOwnerApp } from '../helpers/api.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A stream the client cuts before the upstream's usage chunk is charged an estimate of the output
 * written: its characters / 4. Japanese, Chinese or Korean text is about a token a character, so a
 * client that cuts each streamed answer just before its end pays about a quarter of its output —
 * the upstream billed every token it generated. The estimate must not be below the tokens written.
 * Owned by the chat relay (chat-relay.ts / openai/relay.ts count written UTF-16 length;
 * tokens.ts's tokensOfLength divides it by 4).
 */
const WRITTEN = '東京都の天気は晴れ時々くもり、最高気温は二十三度で、夜には雨が降るでしょう。'.repeat(8);

/** An OpenAI-type upstream that streams WRITTEN in pieces, then holds the stream open (its usage never comes). */
async function startStallingUpstream() {
  const open: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>) =>
        res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'writer', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      chunk({ role: 'assistant', content: '' });
      for (let i = 0; i < WRITTEN.length; i += 20) chunk({ content: WRITTEN.slice(i, i + 20) });
      open.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => {
      for (const res of open) res.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let upstream: Awaited<ReturnType<typeof startStallingUpstream>>;
let t: TestServer;
const rows: UsageEvent[] = [];

beforeAll(async () => {
  upstream = await startStallingUpstream();
  const file = writeProvidersFile({
    providers: [{ id: 'host', type: 'openai', base_url: upstream.url, api_key_env: 'UP_KEY', models: [{ id: 'gpt-4o-mini', input_price: 1000, output_price: 2000, context_length: 128_000 }] }],
  });
  const watcher = { usageRecorded: (row: UsageEvent) => void rows.push(row), attemptEnded() {}, breakerChanged() {}, holdsInFlight() {} };
  t = await startTestServer({ providersFile: file, env: { UP_KEY: 'up-key' }, observers: { watcher } });
});
afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

describe('a streamed chat completion the client cuts before its usage', () => {
  it('is charged at least the tokens written to it', async () => {
    const app = await createOwnerApp(t, { balanceCredits: 10_000 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'cut', is_test: false })).secret;
    const aborter = new AbortController();
    const response = await fetch(`${t.url}${API}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'host/gpt-4o-mini', max_tokens: 2000, stream: true, messages: [{ role: 'user', content: '天気は?' }] }),
      signal: aborter.signal,
    });
    expect(response.status).toBe(200);
    // Read until every character has arrived, then cut.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let received = '';
    while (received.length < WRITTEN.length) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const events = text.split('\n\n');
      text = events.pop() ?? '';
      for (const event of events) {
        const data = event.replace(/^data: /, '');
        const parsed = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
        received += parsed.choices?.[0]?.delta?.content ?? '';
      }
    }
    expect(received).toBe(WRITTEN);
    const before = rows.length;
    aborter.abort();
    await expect.poll(() => rows.length, { timeout: 15_000 }).toBeGreaterThan(before);
    const row = rows.at(-1)!;
    expect(row.status).toBe('canceled');
    expect(row.outputTokens).toBeGreaterThanOrEqual(O200K.text(WRITTEN));
  });
});
