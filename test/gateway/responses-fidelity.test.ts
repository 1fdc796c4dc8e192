import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDeveloper, API, expectApiError } from '../helpers/api.js';
import { scriptedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';

/**
 * The Responses API as the official openai SDK sees it, in front of an upstream with its own
 * Responses API (`acme`, relayed) and one without (`plain`, translated to chat), and the local model.
 */
let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>>;
let t: TestServer;

beforeAll(async () => {
  const model = (id: string) => ({ id, input_price: 0.5, output_price: 1.5, context_length: 8192 });
  upstreams = await startFakeUpstreams((urls) => [
    { id: 'acme', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', supports_responses: true, models: [model('gpt-fake')] },
    { id: 'plain', type: 'openai', base_url: urls.openai, api_key_env: 'FAKE_OPENAI_KEY', models: [model('gpt-fake')] },
  ]);
  t = await startTestServer({ providersFile: upstreams.file, env: upstreams.env });
});
afterAll(async () => {
  await t?.close();
  await upstreams?.close();
});

const sdkOf = (server: TestServer, apiKey = server.liveKey) => new OpenAI({ apiKey, baseURL: `${server.url}${API}`, maxRetries: 0 });
const sdk = () => sdkOf(t);
const MODELS = ['acme/gpt-fake', 'plain/gpt-fake', 'local/echo'];

describe('previous_response_id is echoed as the client sent it', () => {
  for (const model of MODELS) {
    it(`on create, in streamed events and on retrieve: ${model}`, async () => {
      const first = await sdk().responses.create({ model, input: 'my name is Ada' });
      const second = await sdk().responses.create({ model, input: 'what is my name?', previous_response_id: first.id });
      expect(second.previous_response_id).toBe(first.id);
      expect((await sdk().responses.retrieve(second.id)).previous_response_id).toBe(first.id);

      const stream = await sdk().responses.create({ model, input: 'and again?', previous_response_id: second.id, stream: true });
      const echoed: (string | null | undefined)[] = [];
      for await (const event of stream) if ('response' in event) echoed.push(event.response.previous_response_id);
      expect(echoed.length).toBeGreaterThanOrEqual(2);
      expect(new Set(echoed)).toEqual(new Set([second.id]));

      // Without one, it is null, as OpenAI answers.
      expect(first.previous_response_id ?? null).toBeNull();
    });
  }
});

describe('input items in OpenAI’s shape', () => {
  for (const model of ['acme/gpt-fake', 'plain/gpt-fake']) {
    it(`typed items, newest first by default, paged with after and limit: ${model}`, async () => {
      const first = await sdk().responses.create({
        model,
        input: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'input_text', text: 'first question' }] },
        ],
      });
      const second = await sdk().responses.create({ model, input: 'second question', previous_response_id: first.id });

      const newestFirst = await sdk().responses.inputItems.list(second.id);
      const texts = newestFirst.data.map((item) => (item.type === 'message' ? item.content.map((part) => ('text' in part ? part.text : '')).join('') : ''));
      expect(newestFirst.data.map((item) => item.type)).toEqual(['message', 'message', 'message', 'message']);
      expect(newestFirst.data.map((item) => (item.type === 'message' ? item.role : null))).toEqual(['user', 'assistant', 'user', 'system']);
      expect(texts[0]).toBe('second question');
      expect(texts.slice(2)).toEqual(['first question', 'be brief']);
      // The SDK sends include as include[]=…: accepted (the items are answered whole).
      const included = await sdk().responses.inputItems.list(second.id, { include: ['message.input_image.image_url'] });
      expect(included.data.map((item) => item.id)).toEqual(newestFirst.data.map((item) => item.id));
      const [latest, answer] = newestFirst.data;
      expect(latest).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second question' }], id: expect.any(String) });
      expect(answer).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text' }] });
      expect(newestFirst.has_more).toBe(false);

      // Ascending in pages of one: the same items the other way round, each page pointing on.
      const ids: string[] = [];
      let page = await sdk().responses.inputItems.list(second.id, { order: 'asc', limit: 1 });
      for (;;) {
        expect(page.data).toHaveLength(1);
        ids.push(page.data[0]!.id);
        if (!page.has_more) break;
        page = await sdk().responses.inputItems.list(second.id, { order: 'asc', limit: 1, after: page.data[0]!.id });
      }
      expect(ids).toEqual(newestFirst.data.map((item) => item.id).reverse());

      const tail = await t.call('GET', `${API}/responses/${second.id}/input_items?limit=2&after=${ids[3]}`);
      expect(tail.body).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[1], has_more: true });
    });
  }

  it('function calls and their outputs keep their types', async () => {
    const tools = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object' }, strict: false }];
    const response = await sdk().responses.create({
      model: 'local/echo',
      tools,
      input: [
        { role: 'user', content: '!tool lookup {"q":1}' },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":1}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'forty-two' },
      ],
    });
    const items = await sdk().responses.inputItems.list(response.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);
    expect(items.data[1]).toMatchObject({ call_id: 'call_1', name: 'lookup', arguments: '{"q":1}' });
    expect(items.data[2]).toMatchObject({ call_id: 'call_1', output: 'forty-two' });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['order=sideways', 'order'],
    ['after=msg_unknown', 'after'],
  ])('%s is a 400 naming %s', async (query, param) => {
    const response = await sdk().responses.create({ model: 'local/echo', input: 'x' });
    expectApiError(await t.call('GET', `${API}/responses/${response.id}/input_items?${query}`), 400, { param });
  });
});

describe('DELETE /responses/{id}', () => {
  it('deletes the caller’s response; afterwards it is a 404', async () => {
    const response = await sdk().responses.create({ model: 'plain/gpt-fake', input: 'forget me' });
    await sdk().responses.delete(response.id);
    await expect(sdk().responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
    const again = await t.call('DELETE', `${API}/responses/${response.id}`);
    expectApiError(again, 404, { code: 'response_not_found' });
    const deleted = await sdk().responses.create({ model: 'local/echo', input: 'x' });
    expect((await t.call('DELETE', `${API}/responses/${deleted.id}`)).body).toEqual({ id: deleted.id, object: 'response', deleted: true });
  });
});

describe('another app’s key and a test key reach nothing', () => {
  it('retrieve, input items, resume and delete are 404; the response stays', async () => {
    const response = await sdk().responses.create({ model: 'local/echo', input: 'private', background: true, stream: true });
    let id = '';
    for await (const event of response) if (event.type === 'response.created') id = event.response.id;
    const other = await addDeveloper(t);
    for (const key of [other.key, t.testKey]) {
      const stranger = sdkOf(t, key);
      await expect(stranger.responses.retrieve(id)).rejects.toMatchObject({ status: 404 });
      await expect(stranger.responses.retrieve(id, { stream: true, starting_after: 0 })).rejects.toMatchObject({ status: 404 });
      await expect(stranger.responses.inputItems.list(id)).rejects.toMatchObject({ status: 404 });
      await expect(stranger.responses.delete(id)).rejects.toMatchObject({ status: 404 });
    }
    expect((await sdk().responses.retrieve(id)).status).toBe('completed');
  });
});

describe('background responses that stream', () => {
  /** A model that writes its first piece, then waits until the test lets it write the rest. */
  function gatedServer() {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const provider = scriptedProvider(() => 'one two three four five six', 4, () => gate);
    return { start: () => startTestServer({ providers: [provider] }), open: () => open() };
  }

  it('streams while it runs, runs on without its client, and resumes after a sequence number', async () => {
    const gated = gatedServer();
    const server = await gated.start();
    try {
      const client = sdkOf(server);
      const stream = await client.responses.create({ model: 'script/answer', input: 'go', background: true, stream: true });
      const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
      let id = '';
      for await (const event of stream) {
        seen.push(event);
        if (event.type === 'response.created') {
          id = event.response.id;
          expect(event.response).toMatchObject({ status: 'queued', background: true });
        }
        if (event.type === 'response.output_text.delta') break; // the client goes away mid-answer
      }
      expect(seen.map((e) => e.sequence_number)).toEqual(seen.map((_, i) => i));
      const last = seen.at(-1)!.sequence_number;

      // A follower from here on gets the rest, live, while the model is still writing.
      const resumed = await client.responses.retrieve(id, { stream: true, starting_after: last });
      const following = (async () => {
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        for await (const event of resumed) events.push(event);
        return events;
      })();
      gated.open();
      const rest = await following;
      expect(rest[0]!.sequence_number).toBe(last + 1);
      expect(rest.map((e) => e.sequence_number)).toEqual(rest.map((_, i) => last + 1 + i));
      expect(rest.at(-1)).toMatchObject({ type: 'response.completed', response: { id, status: 'completed' } });

      const done = await client.responses.retrieve(id);
      expect(done.status).toBe('completed');
      expect(done.output_text).toBe('one two three four five six');
      const deltas = [...seen, ...rest].flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
      expect(deltas).toBe(done.output_text);

      // Replayed after the end: the same events after any point.
      const replay: { sequence_number: number }[] = [];
      for await (const event of await client.responses.retrieve(id, { stream: true, starting_after: last + 2 })) replay.push(event);
      expect(replay).toEqual(rest.slice(2));
    } finally {
      gated.open();
      await server.close();
    }
  });

  it('a response not created with background and stream has nothing to stream: 400', async () => {
    const response = await sdk().responses.create({ model: 'local/echo', input: 'plain' });
    const answer = await t.call('GET', `${API}/responses/${response.id}?stream=true`);
    expectApiError(answer, 400, { param: 'stream', code: 'response_not_streamable' });
  });
});
