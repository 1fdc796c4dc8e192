import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { addDeveloper, API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { pricedProvider, stallingChatAdapter } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const t = useTestServer({ providers: [pricedProvider()] });
const create = (body: Record<string, unknown>, server: TestServer = t) =>
  server.call('POST', `${API}/responses`, { body: { model: 'local/echo', ...body } });
const outputText = (response: { output: { type: string; content?: { type: string; text: string }[] }[] }) =>
  response.output.flatMap((item) => (item.type === 'message' ? (item.content ?? []).map((part) => part.text) : [])).join('');

/** Until the response leaves queued/in_progress: polls the API, never the clock. */
async function settled(id: string, server: TestServer = t) {
  for (;;) {
    const answer = await server.call('GET', `${API}/responses/${id}`);
    if (!['queued', 'in_progress'].includes(answer.body.status)) return answer;
  }
}

describe('POST /responses (translated to chat for local/echo)', () => {
  it('answers a string input with a completed response in OpenAI’s shape', async () => {
    const answer = await create({ input: 'respond to me' });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ object: 'response', status: 'completed', model: 'local/echo', error: null });
    expect(answer.body.id).toMatch(/^resp_/);
    expect(outputText(answer.body)).toContain('respond to me');
    expect(answer.body.usage.total_tokens).toBe(answer.body.usage.input_tokens + answer.body.usage.output_tokens);
  });

  it('takes messages as the SDK example sends them', async () => {
    const answer = await create({ messages: [{ role: 'user', content: 'as messages' }] });
    expect(outputText(answer.body)).toContain('as messages');
  });

  it('takes input items, and runs a function tool round trip', async () => {
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }];
    const first = await create({ tools, input: [{ role: 'user', content: [{ type: 'input_text', text: '!tool lookup {"q":1}' }] }] });
    const call = first.body.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'lookup', arguments: '{"q":1}', call_id: expect.any(String) });
    const second = await create({
      tools,
      input: [
        { role: 'user', content: '!tool lookup {"q":1}' },
        { type: 'function_call', call_id: call.call_id, name: 'lookup', arguments: '{"q":1}' },
        { type: 'function_call_output', call_id: call.call_id, output: 'forty-two' },
      ],
    });
    expect(outputText(second.body)).toContain('forty-two');
  });

  it('stops at max_output_tokens with status incomplete', async () => {
    const answer = await create({ input: 'a fairly long sentence with many words in it', max_output_tokens: 2 });
    expect(answer.body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it.each([
    ['temperature 2.5', { input: 'x', temperature: 2.5 }, 'temperature'],
    ['input and messages together', { input: 'x', messages: [{ role: 'user', content: 'y' }] }, 'messages'],
    ['no input', {}, 'input'],
    ['a tool type the model cannot run', { input: 'x', tools: [{ type: 'web_search' }] }, 'tools[0]'],
    ['an unknown input item', { input: [{ type: 'computer_call' }] }, 'input[0].type'],
  ])('%s is a 400 naming %s', async (_name, body, param) => {
    expectApiError(await create(body), 400, { param });
  });
});

describe('streamed responses', () => {
  it('sends the typed events in order, deltas adding up to the final text', async () => {
    const response = await fetch(`${t.url}${API}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.liveKey },
      body: JSON.stringify({ model: 'local/echo', input: 'stream this response', stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        const data = JSON.parse((dataLine ?? '').slice('data: '.length));
        expect(eventLine).toBe(`event: ${data.type}`);
        return data;
      });
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    const final = events.at(-1).response;
    expect(outputText(final)).toBe(deltas);
    expect(deltas).toContain('stream this response');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    // A finished streamed response can be read back.
    expect((await t.call('GET', `${API}/responses/${final.id}`)).body.status).toBe('completed');
  });
});

describe('background responses', () => {
  it('answers queued at once; GET reads the result', async () => {
    const queued = await create({ input: 'in the background', background: true });
    expectStatus(queued, 200);
    expect(queued.body.status).toBe('queued');
    const done = await settled(queued.body.id);
    expect(done.body.status).toBe('completed');
    expect(outputText(done.body)).toContain('in the background');
    expectApiError(await t.call('POST', `${API}/responses/${queued.body.id}/cancel`), 409, { code: 'response_not_cancellable' });
  });

  it('is private to its app, and unknown ids are 404', async () => {
    const queued = await create({ input: 'mine', background: true });
    const other = await addDeveloper(t);
    expectApiError(await t.call('GET', `${API}/responses/${queued.body.id}`, { key: other.key }), 404);
    expectApiError(await t.call('GET', `${API}/responses/resp_doesnotexist`), 404, { code: 'response_not_found' });
    expectApiError(await t.call('GET', `${API}/responses/not-an-id`), 400, { param: 'id' });
  });

  it('is kept for 24 hours', async () => {
    const answer = await create({ input: 'ephemeral' });
    t.clock.advance(25 * 60 * 60 * 1000);
    expectApiError(await t.call('GET', `${API}/responses/${answer.body.id}`), 404);
  });

  it('a running response can be cancelled: the upstream call stops and the hold is released', async () => {
    const adapter = stallingChatAdapter();
    const provider = { ...pricedProvider(adapter), id: 'paid' };
    const server = await startTestServer({ providers: [provider] });
    try {
      const queued = await create({ model: 'paid/echo', input: 'never finishes', background: true }, server);
      await adapter.started;
      expect((await server.call('GET', `${API}/credits/balance`)).body.held_credits).toBeGreaterThan(0);
      const cancelled = await server.call('POST', `${API}/responses/${queued.body.id}/cancel`);
      expect(cancelled.body.status).toBe('cancelled');
      await adapter.aborted;
      expect((await settled(queued.body.id, server)).body.status).toBe('cancelled');
      let balance;
      do balance = await server.call('GET', `${API}/credits/balance`);
      while (balance.body.held_credits !== 0);
      expect(balance.body.credits).toBe(100);
      // Cancelling again is harmless.
      expect((await server.call('POST', `${API}/responses/${queued.body.id}/cancel`)).body.status).toBe('cancelled');
    } finally {
      await server.close();
    }
  });

  it('a response running when the server stops is failed, not left running', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'svc-responses-')), 'server.db');
    const adapter = stallingChatAdapter();
    const first = await startTestServer({ dbPath, providers: [pricedProvider(adapter)] });
    const queued = await create({ model: 'paid/echo', input: 'cut short', background: true }, first);
    await adapter.started;
    await first.close();
    const { startServer } = await import('../../server/app.js');
    const second = await startServer({ dbPath, port: 0, log: () => {}, clock: first.clock });
    try {
      const key = first.liveKey;
      const answer = await fetch(`${second.url}${API}/responses/${queued.body.id}`, { headers: { 'x-api-key': key } });
      expect(await answer.json()).toMatchObject({ status: 'failed', error: { code: 'server_shutdown' } });
    } finally {
      await second.close();
    }
  });
});

describe('metering of responses', () => {
  it('charges the tokens of the response', async () => {
    const answer = await create({ model: 'paid/echo', input: 'pay for me', max_output_tokens: 20 });
    const cost = answer.body.usage.input_tokens * 100_000 + answer.body.usage.output_tokens * 200_000;
    const balance = await t.call('GET', `${API}/credits/balance`);
    expect(Math.round(balance.body.credits * 1e6)).toBe(100_000_000 - cost);
  });
});

describe('the official openai SDK', () => {
  const sdk = () => new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });

  it('responses.create', async () => {
    const response = await sdk().responses.create({ model: 'local/echo', input: 'sdk create' });
    expect(response.output_text).toContain('sdk create');
  });

  it('responses.stream() to its final response', async () => {
    const stream = sdk().responses.stream({ model: 'local/echo', input: 'sdk stream' });
    let text = '';
    stream.on('response.output_text.delta', (event) => (text += event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toContain('sdk stream');
    expect(text).toBe(final.output_text);
  });

  it('a background response polled to completion', async () => {
    let response = await sdk().responses.create({ model: 'local/echo', input: 'sdk background', background: true });
    while (response.status === 'queued' || response.status === 'in_progress') response = await sdk().responses.retrieve(response.id);
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('sdk background');
  });
});
