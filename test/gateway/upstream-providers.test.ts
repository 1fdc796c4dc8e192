import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { API, expectApiError, expectStatus } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The gateway end to end in front of real wire protocols: a providers file names the fake OpenAI
 * and the fake Anthropic upstreams, and requests go through svc to them and back.
 */
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let t: TestServer;
let providersFile: string;
const env = () => ({ FAKE_OPENAI_KEY: openai.apiKey, FAKE_ANTHROPIC_KEY: 'anthropic-test-key' });

beforeAll(async () => {
  openai = await startFakeOpenAI();
  anthropic = await startFakeAnthropic({ apiKey: 'anthropic-test-key' });
  providersFile = join(mkdtempSync(join(tmpdir(), 'svc-providers-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: [
        {
          id: 'acme',
          type: 'openai',
          base_url: openai.url,
          api_key_env: 'FAKE_OPENAI_KEY',
          supports_responses: true,
          models: [
            { id: 'gpt-fake', input_price: 0.5, output_price: 1.5, context_length: 8192 },
            { id: 'embed-fake', input_price: 0.1, output_price: 0, capabilities: ['embeddings'] },
          ],
        },
        {
          id: 'claude',
          type: 'anthropic',
          base_url: anthropic.url,
          api_key_env: 'FAKE_ANTHROPIC_KEY',
          models: [{ id: 'claude-fake', input_price: 3, output_price: 15 }],
        },
      ],
    }),
  );
  t = await startTestServer({ providersFile, env: env() });
});
afterAll(async () => {
  await t?.close();
  await openai?.close();
  await anthropic?.close();
});

const sdk = () => new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });

describe('an OpenAI-compatible upstream from the providers file', () => {
  it('is listed with its prices', async () => {
    const models = await t.call('GET', `${API}/models?provider=acme`);
    expect(models.body.data.map((m: { id: string }) => m.id)).toEqual(['acme/embed-fake', 'acme/gpt-fake']);
  });

  it('answers chat, streamed and not, under its model id, with the upstream’s usage charged', async () => {
    const before = (await t.call('GET', `${API}/credits/balance`)).body.credits;
    const completion = await sdk().chat.completions.create({ model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'hello acme' }] });
    expect(completion.model).toBe('acme/gpt-fake');
    expect(completion.choices[0]?.message.content).toContain('hello acme');
    expect(openai.requests.at(-1)?.body).toMatchObject({ model: 'gpt-fake' });
    const usage = completion.usage!;
    const after = (await t.call('GET', `${API}/credits/balance`)).body.credits;
    expect(Math.round((before - after) * 1e6)).toBe(Math.ceil(usage.prompt_tokens * 50 + usage.completion_tokens * 150));

    const stream = await sdk().chat.completions.create({ model: 'acme/gpt-fake', stream: true, messages: [{ role: 'user', content: 'stream acme' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('stream acme');
  });

  it('embeds', async () => {
    const result = await sdk().embeddings.create({ model: 'acme/embed-fake', input: ['a', 'b'] });
    expect(result.data).toHaveLength(2);
    expect(result.model).toBe('acme/embed-fake');
  });

  it('passes the Responses API through natively, messages turned into input', async () => {
    const response = await t.call('POST', `${API}/responses`, {
      body: { model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'native responses' }], image_model: 'x/y' },
    });
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ object: 'response', model: 'acme/gpt-fake', status: 'completed' });
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.body).toMatchObject({ model: 'gpt-fake', input: [{ role: 'user', content: 'native responses' }] });
    expect(sent.body).not.toHaveProperty('image_model');
    expect(sent.body).not.toHaveProperty('messages');
    const final = await sdk().responses.stream({ model: 'acme/gpt-fake', input: 'native stream' }).finalResponse();
    expect(final.output_text).toContain('native stream');
  });

  it('an upstream that is down, or answers garbage, is a 502 that names the provider and not its key', async () => {
    openai.script({ kind: 'destroy' }, { kind: 'destroy' }, { kind: 'destroy' });
    const down = await t.call('POST', `${API}/chat/completions`, { body: { model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'x' }] } });
    expectApiError(down, 502, { type: 'upstream_error' });
    expect(down.body.error.message).toContain("'acme'");
    openai.script({ kind: 'garbage' });
    const garbage = await t.call('POST', `${API}/chat/completions`, { body: { model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'x' }] } });
    expectApiError(garbage, 502, { code: 'upstream_bad_response' });
    for (const answer of [down, garbage]) expect(JSON.stringify(answer.body)).not.toContain(openai.apiKey);
    // Failed requests are charged nothing and leave nothing held.
    expect((await t.call('GET', `${API}/credits/balance`)).body.held_credits).toBe(0);
  });

  it('an upstream that breaks mid-stream ends the stream with one error event, charging what was produced', async () => {
    openai.script({ kind: 'cut', after: 3 });
    const response = await fetch(`${t.url}${API}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.liveKey },
      body: JSON.stringify({ model: 'acme/gpt-fake', stream: true, messages: [{ role: 'user', content: 'a stream that breaks off' }] }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    const last = JSON.parse(events.at(-1)!.slice('data: '.length));
    expect(last.error).toMatchObject({ type: 'upstream_error', code: 'upstream_bad_response' });
    expect(events.some((event) => event === 'data: [DONE]')).toBe(false);
    expect((await t.call('GET', `${API}/credits/balance`)).body.held_credits).toBe(0);
  });

  it('the upstream’s 429 reaches the client as a 429 with retry-after', async () => {
    const limited = { kind: 'respond' as const, status: 429, headers: { 'retry-after': '120' }, body: { error: { message: 'slow down' } } };
    openai.script(limited);
    const answer = await t.call('POST', `${API}/chat/completions`, { body: { model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'x' }] } });
    expectApiError(answer, 429, { type: 'rate_limit_exceeded' });
    expect(answer.headers.get('retry-after')).toBe('120');
  });
});

describe('an Anthropic upstream from the providers file', () => {
  it('answers chat through the Messages API, system prompt included', async () => {
    const completion = await sdk().chat.completions.create({
      model: 'claude/claude-fake',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello claude' },
      ],
    });
    expect(completion.choices[0]?.message.content).toContain('hello claude');
    expect(anthropic.requests.at(-1)?.body).toMatchObject({ model: 'claude-fake', system: 'be brief' });
  });

  it('streams, and runs a tool round trip', async () => {
    const stream = await sdk().chat.completions.create({ model: 'claude/claude-fake', stream: true, messages: [{ role: 'user', content: 'stream claude' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('stream claude');

    const runner = sdk().chat.completions.runTools({
      model: 'claude/claude-fake',
      messages: [{ role: 'user', content: 'use lookup {"q":"svc"}' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks things up',
            parameters: { type: 'object', properties: { q: { type: 'string' } } },
            function: (args: { q: string }) => `found ${args.q}`,
            parse: JSON.parse,
          },
        },
      ],
    });
    expect(await runner.finalContent()).toContain('found svc');
  });

  it('serves the Responses API by translation', async () => {
    const response = await sdk().responses.create({ model: 'claude/claude-fake', input: 'translated for claude' });
    expect(response.output_text).toContain('translated for claude');
  });
});

describe('provider configuration errors', () => {
  it('refuses a providers file with a bad field, naming it', async () => {
    const bad = join(mkdtempSync(join(tmpdir(), 'svc-providers-')), 'bad.json');
    writeFileSync(bad, JSON.stringify({ providers: [{ id: 'x', type: 'grpc', base_url: 'http://a', models: [] }] }));
    await expect(startServer({ dbPath: ':memory:', port: 0, providersFile: bad, env: {}, log: () => {} })).rejects.toThrow(/providers\.0\.type/);
  });

  it('refuses a provider whose key variable is not set', async () => {
    await expect(startServer({ dbPath: ':memory:', port: 0, providersFile, env: {}, log: () => {} })).rejects.toThrow(/FAKE_OPENAI_KEY is not set/);
  });
});
