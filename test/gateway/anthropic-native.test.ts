import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import type { AIMessageChunk } from '@langchain/core/messages';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicAdapter } from '../../server/providers/anthropic/adapter.js';
import { modelEntries } from '../../server/providers/config.js';
import { createUpstream } from '../../server/providers/upstream.js';
import { countInputTokens, startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { runWeatherTool } from '../helpers/ai-sdk.js';
import { API, createKey, expectApiError } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `/api/v1/messages` in front of an Anthropic upstream relays, as Claude Code needs: the body and
 * the protocol headers reach the upstream as the client sent them (only `model` changes), the
 * answer and every stream event come back as the upstream sent them (thinking and signatures
 * included), usage with the cache's parts is read and priced as Anthropic prices it, and every
 * error, the upstream's or svc's own, is in Anthropic's shape.
 */
const UPSTREAM_KEY = 'anthropic-upstream-key';
const SONNET = { input: 3, output: 15 };
let fake: FakeAnthropic;
let t: TestServer;

beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: UPSTREAM_KEY });
  // No retries: a scripted 429 or 529 must reach the client at once.
  const upstream = createUpstream({ provider: 'anthropic', baseUrl: fake.url, headers: { 'x-api-key': UPSTREAM_KEY } });
  const config = {
    id: 'anthropic',
    type: 'anthropic' as const,
    base_url: fake.url,
    models: [
      { id: 'claude-sonnet-4-5', input_price: SONNET.input, output_price: SONNET.output, context_length: 200_000 },
      { id: 'claude-haiku-4-5', input_price: 1, output_price: 5, context_length: 200_000 },
    ],
  };
  t = await startTestServer({ providers: [{ id: 'anthropic', adapter: createAnthropicAdapter({ upstream }), models: modelEntries(config), retries: 0 }] });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clearCache());

const client = (apiKey = t.liveKey, headers: Record<string, string> = {}) =>
  new Anthropic({ apiKey, baseURL: `${t.url}/api`, maxRetries: 0, defaultHeaders: headers });
const lastUpstream = () => fake.requests.at(-1)!;
const balanceMicro = async () => Math.round(Number((await t.call('GET', `${API}/credits/balance`)).body.credits) * 1_000_000);

/**
 * What Anthropic charges for a usage object, in micro-credits (1 credit = $0.01, so a token at $P
 * per million is P × 100 micro-credits): a cache read at 0.1× the input price, a 5-minute write
 * at 1.25×, a 1-hour write at 2× (its published multipliers). Whole numbers for whole-dollar prices.
 */
function anthropicPriceMicro(usage: Anthropic.Usage, price: { input: number; output: number }): number {
  const write1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const write5m = (usage.cache_creation_input_tokens ?? 0) - write1h;
  return (
    usage.input_tokens * price.input * 100 +
    (usage.cache_read_input_tokens ?? 0) * price.input * 10 +
    write5m * price.input * 125 +
    write1h * price.input * 200 +
    usage.output_tokens * price.output * 100
  );
}

/** A Claude Code–sized system prompt: about 19k tokens, with a cache breakpoint. */
const SYSTEM = [
  { type: 'text' as const, text: 'You are Claude Code, Anthropic’s official CLI for Claude.' },
  { type: 'text' as const, text: 'Tool use rules and project context. '.repeat(2_200), cache_control: { type: 'ephemeral' as const } },
];
const TOOLS: Anthropic.Tool[] = [
  {
    name: 'Read',
    description: 'Reads a file from the local filesystem.',
    input_schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { file_path: { type: 'string', description: 'The absolute path to the file to read' } },
      required: ['file_path'],
      additionalProperties: false,
    },
  },
];
const CLAUDE_CODE_HEADERS = {
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14',
};

describe('a Claude Code session, as it goes over the wire', () => {
  it('probe, count_tokens, a thinking turn that writes the cache, and the tool_result turn that reads it', async () => {
    const cc = client(t.liveKey, CLAUDE_CODE_HEADERS);

    // 1. The quota probe Claude Code sends at start: haiku, max_tokens 1.
    const probe = await cc.messages.create({ model: 'claude-haiku-4-5', max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] });
    expect(probe.usage.output_tokens).toBe(1);
    expect(lastUpstream().body).toEqual({ model: 'claude-haiku-4-5', max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] });

    // 2. count_tokens with tools: the upstream's own count.
    const countParams = { model: 'claude-sonnet-4-5', system: SYSTEM, tools: TOOLS, messages: [{ role: 'user' as const, content: 'Read package.json' }] };
    const counted = await cc.messages.countTokens(countParams);
    expect(lastUpstream().path).toMatch(/^\/v1\/messages\/count_tokens/);
    expect(lastUpstream().body).toEqual(countParams);
    expect(counted.input_tokens).toBeGreaterThan(19_000);

    // 3. The first turn, streamed, thinking on, with metadata.user_id: written to the cache.
    const first: Anthropic.MessageCreateParamsStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 4_000,
      stream: true,
      system: SYSTEM,
      tools: TOOLS,
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      metadata: { user_id: 'user_0a1b_account__session_3c4d' },
      messages: [{ role: 'user', content: 'use Read {"file_path":"/repo/package.json"}' }],
    };
    const before = await balanceMicro();
    const stream = cc.messages.stream(first);
    const kinds: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') kinds.push(event.delta.type);
    });
    const answer = await stream.finalMessage();
    const sent = lastUpstream();
    expect(sent.body).toEqual({ ...first });
    expect(sent.headers['anthropic-beta']).toBe(CLAUDE_CODE_HEADERS['anthropic-beta']);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(kinds).toContain('thinking_delta');
    expect(kinds).toContain('signature_delta');
    const thinking = answer.content.find((block) => block.type === 'thinking');
    const toolUse = answer.content.find((block) => block.type === 'tool_use');
    expect(thinking?.type === 'thinking' && thinking.signature.length > 0).toBe(true);
    expect(toolUse).toBeDefined();
    expect(answer.model).toBe('anthropic/claude-sonnet-4-5');
    expect(answer.usage.cache_creation_input_tokens).toBeGreaterThan(19_000);
    expect(await balanceMicro()).toBe(before - anthropicPriceMicro(answer.usage, SONNET));

    // 4. The continuation: the thinking block goes back unaltered with the tool result; the
    //    system prompt is read from the cache and billed at a tenth of the input price.
    const second = {
      ...first,
      stream: false as const,
      messages: [
        ...first.messages,
        { role: 'assistant' as const, content: answer.content },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: toolUse!.type === 'tool_use' ? toolUse!.id : '', content: '{"name":"svc"}' }] },
      ],
    };
    const beforeSecond = await balanceMicro();
    const { data: reply, response, request_id } = await cc.messages.create(second).withResponse();
    expect(request_id).toMatch(/^req_/);
    expect(response.headers.get('request-id')).toBe(request_id);
    expect(lastUpstream().body).toEqual(JSON.parse(JSON.stringify(second)));
    expect(reply.usage.cache_read_input_tokens).toBeGreaterThan(19_000);
    // Not streamed, thinking comes back too (interleaved after the tool result), signed.
    const again = reply.content.find((block) => block.type === 'thinking');
    expect(again?.type === 'thinking' && again.signature.length > 0).toBe(true);
    const charged = beforeSecond - (await balanceMicro());
    expect(charged).toBe(anthropicPriceMicro(reply.usage, SONNET));
    // Billed as Anthropic bills it: far below the same input at the full price.
    expect(charged).toBeLessThan(((reply.usage.cache_read_input_tokens ?? 0) * SONNET.input * 100) / 2);
  });

  it('a 1-hour cache write is priced at twice the input price', async () => {
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 50,
      system: [{ type: 'text' as const, text: 'Long-lived instructions. '.repeat(400), cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }],
      messages: [{ role: 'user' as const, content: 'hello' }],
    };
    const before = await balanceMicro();
    const message = await client().messages.create(request);
    expect(message.usage.cache_creation?.ephemeral_1h_input_tokens).toBeGreaterThan(2_000);
    const charged = before - (await balanceMicro());
    expect(charged).toBe(anthropicPriceMicro(message.usage, SONNET));
    // The answer says what it was charged, in credits.
    expect((message.usage as Anthropic.Usage & { cost?: number }).cost).toBe(charged / 1_000_000);
  });

  it('fields newer than this code and beta-only fields pass through with their beta header', async () => {
    const beta = client(t.liveKey, { 'anthropic-beta': 'context-management-2025-06-27' });
    const body = {
      model: 'claude-haiku-4-5',
      max_tokens: 20,
      top_k: 5,
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      messages: [{ role: 'user', content: 'hi' }],
    };
    const answer = (await beta.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming)) as unknown as Record<string, unknown>;
    expect(lastUpstream().body).toEqual(body);
    expect(lastUpstream().betas).toEqual(['context-management-2025-06-27']);
    expect(answer.context_management).toBeDefined();
  });

  it('a matched stop sequence comes back as stop_sequence with the string', async () => {
    const message = await client().messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: 'say one two STOP three' }],
    });
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('STOP');
  });
});

describe('errors in Anthropic’s shape, the upstream’s and svc’s own', () => {
  it('an upstream 529 stays a 529 overloaded_error, a 429 a rate_limit_error with retry-after', async () => {
    fake.script({ kind: 'error', status: 529 });
    const overloaded = await client()
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
    expect((overloaded as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((overloaded as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect((overloaded as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);

    fake.script({ kind: 'error', status: 429, headers: { 'retry-after': '7' } });
    const limited = await client()
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toBe('7');
  });

  it('an error event in the middle of a stream is relayed and the stream ends there; the request pays for what was produced', async () => {
    fake.script({ kind: 'stream_error', errorType: 'overloaded_error', afterDeltas: 2 });
    const before = await balanceMicro();
    const failure = await client()
      .messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'say a b c d e f g h' }] })
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(String((failure as Error).message)).toContain('overloaded_error');
    const held = (await t.call('GET', `${API}/credits/balance`)).body.held_credits;
    expect(held).toBe(0);
    // The input and the two deltas that were sent are paid for; nothing is held after.
    expect(await balanceMicro()).toBeLessThan(before);
  });

  it('svc’s own refusals: 401, 403 for the role, 404 for the model, 400 for a bad body, each with request-id', async () => {
    const unknownKey = await client('svc_live_' + 'x'.repeat(40))
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(unknownKey).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unknownKey as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);

    const readOnly = (await createKey(t, t.appUuid, { name: 'reader', role: 'read_only' })).secret as string;
    const refused = await client(readOnly)
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);

    const missing = await client()
      .messages.create({ model: 'claude-nonexistent-9', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });

    const bad = await t.call('POST', `${API}/messages`, { body: { model: 'claude-haiku-4-5', messages: [] } });
    expectApiError(bad, 400, { type: 'invalid_request_error' });
  });

  it("code execution, billed by the container hour and not priced here: the SDK's BadRequestError naming the tool, before anything reaches the upstream", async () => {
    const sent = fake.requests.length;
    const refused = await client()
      .messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'Plot y = x^2.' }],
        tools: [{ type: 'code_execution_20250825', name: 'code_execution' }],
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((refused as InstanceType<typeof Anthropic.APIError>).message).toContain('code_execution_20250825');
    expect(fake.requests.length).toBe(sent);
  });

  it('402 when the balance cannot hold the request: billing_error, before anything reaches the upstream', async () => {
    const sent = fake.requests.length;
    const poor = await t.call('POST', `${API}/messages`, {
      body: { model: 'claude-sonnet-4-5', max_tokens: 10_000_000, messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expectApiError(poor, 402, { type: 'insufficient_credits', code: 'insufficient_credits' });
    expect(poor.body.error.type).toBe('billing_error');
    expect(fake.requests.length).toBe(sent);
  });

  it('a test key never reaches the Anthropic upstream, for messages or count_tokens', async () => {
    const sent = fake.requests.length;
    for (const path of ['/messages', '/messages/count_tokens']) {
      const refused = await t.call('POST', `${API}${path}`, {
        key: t.testKey,
        body: { model: 'claude-haiku-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      });
      expectApiError(refused, 403, { code: 'test_key_not_allowed' });
    }
    expect(fake.requests.length).toBe(sent);
  });
});

describe("Anthropic's rate-limit headers, as the SDK hands them over", () => {
  it('each answer says where the caller stands in anthropic-ratelimit-*, its resets RFC 3339 times', async () => {
    const { response } = await client()
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const limit = Number(response.headers.get('anthropic-ratelimit-requests-limit'));
    expect(limit).toBeGreaterThan(0);
    expect(Number(response.headers.get('anthropic-ratelimit-requests-remaining'))).toBeLessThan(limit);
    expect(Number(response.headers.get('anthropic-ratelimit-tokens-limit'))).toBeGreaterThan(0);
    for (const name of ['anthropic-ratelimit-requests-reset', 'anthropic-ratelimit-tokens-reset']) {
      expect(response.headers.get(name)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
    }
  });
});

describe('GET /models for Anthropic clients', () => {
  it('Anthropic’s shape and paging for a request with anthropic-version; OpenAI’s otherwise', async () => {
    const page = await client().models.list({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String), created_at: expect.any(String) });
    const all: string[] = [];
    for await (const model of client().models.list({ limit: 1 })) all.push(model.id);
    expect(all).toContain('anthropic/claude-sonnet-4-5');
    expect(all).toContain('local/echo');
    const one = await client().models.retrieve('anthropic/claude-haiku-4-5');
    expect(one).toMatchObject({ type: 'model', id: 'anthropic/claude-haiku-4-5', display_name: 'claude-haiku-4-5' });

    const openai = await t.call('GET', `${API}/models`);
    expect(openai.body.object).toBe('list');
    expect(openai.headers.get('request-id')).toBe(openai.headers.get('x-request-id'));
  });
});

describe('other Anthropic clients, relayed', () => {
  it('LangChain ChatAnthropic, streamed: usage_metadata has the upstream’s input count (from message_start)', async () => {
    const chat = new ChatAnthropic({ model: 'claude-haiku-4-5', apiKey: t.liveKey, anthropicApiUrl: `${t.url}/api`, maxRetries: 0 });
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await chat.stream('hello langchain')) whole = whole ? whole.concat(chunk) : chunk;
    expect(String(whole?.content)).toContain('hello langchain');
    expect(whole?.usage_metadata?.input_tokens).toBe(countInputTokens({ messages: [{ role: 'user', content: 'hello langchain' }] }));
    expect(whole?.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it('@ai-sdk/anthropic streamText with a tool: the call streams, runs, and the answer carries its result', async () => {
    const { calls, text, usage } = await runWeatherTool(
      createAnthropic({ apiKey: t.liveKey, baseURL: `${t.url}${API}` })('claude-haiku-4-5'),
      'use get_weather {"city":"Oslo"}',
    );
    expect(calls).toEqual([{ city: 'Oslo' }]);
    expect(text).toContain('sunny');
    expect(usage.inputTokens).toBeGreaterThan(0);
    // The tool result went upstream as Anthropic's tool_result block, unchanged by svc.
    expect(JSON.stringify(lastUpstream().body)).toContain('"type":"tool_result"');
  });
});
