import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { createAnthropicAdapter } from '../../server/providers/anthropic/adapter.js';
import type { ChatCall, ChatChunk, ProviderAdapter } from '../../server/providers/types.js';
import { createUpstream } from '../../server/providers/upstream.js';
import { ChatCompletionBody } from '../../src/contract/schemas/inference.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';

let fake: FakeAnthropic;
let adapter: ProviderAdapter;

beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: 'test-key' });
  const upstream = createUpstream({ provider: 'anthropic', baseUrl: fake.url, headers: { 'x-api-key': 'test-key' } });
  adapter = createAnthropicAdapter({ upstream });
});
afterAll(async () => {
  await adapter.close?.();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const weather = { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

function chatCall(body: Record<string, unknown>, maxOutputTokens = 256): ChatCall {
  return {
    model: 'claude-test',
    body: ChatCompletionBody.parse({ model: 'anthropic/claude-test', ...body }),
    maxOutputTokens,
    signal: new AbortController().signal,
  };
}

async function collect(call: ChatCall): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of adapter.chatStream(call)) chunks.push(chunk);
  return chunks;
}

/** Expects the promise to fail with an ApiError that has these fields. */
const failsWith = (promise: Promise<unknown>, expected: Partial<Record<keyof ApiError, unknown>>) =>
  expect(promise).rejects.toMatchObject({ name: 'ApiError', ...expected });

/** Tool calls reassembled from stream chunks, by index. */
function reassemble(chunks: ChatChunk[]) {
  const calls: { id?: string; type?: string; name: string; arguments: string }[] = [];
  for (const piece of chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])) {
    const call = (calls[piece.index] ??= { name: '', arguments: '' });
    if (piece.id) call.id = piece.id;
    if (piece.type) call.type = piece.type;
    call.name += piece.function?.name ?? '';
    call.arguments += piece.function?.arguments ?? '';
  }
  return calls;
}

describe('anthropic adapter against the fake Messages API', () => {
  it('answers a text chat in OpenAI’s shape', async () => {
    const { completion, usage } = await adapter.chat(chatCall({ messages: [{ role: 'user', content: 'hello there' }] }));
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'anthropic/claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'You said: hello there' }, finish_reason: 'stop' }],
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBe(4);
    // Cache reads are reported as OpenAI's cached_tokens (none on a first request).
    expect(completion.usage).toEqual({
      prompt_tokens: usage.inputTokens,
      completion_tokens: 4,
      total_tokens: usage.inputTokens + 4,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('sends what Anthropic expects: headers, system, alternating turns, max_tokens', async () => {
    await adapter.chat(
      chatCall(
        {
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'one' },
            { role: 'user', content: [{ type: 'text', text: 'two' }] },
            { role: 'assistant', content: 'ok' },
            { role: 'user', content: 'three' },
          ],
          temperature: 1.5,
          stop: ['zzz'],
        },
        99,
      ),
    );
    const [received] = fake.requests;
    expect(received).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(received?.headers).toMatchObject({ 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
    expect(received?.body).toEqual({
      model: 'claude-test',
      max_tokens: 99,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: [{ type: 'text', text: 'three' }] },
      ],
      temperature: 1,
      stop_sequences: ['zzz'],
    });
  });

  it('maps max_tokens and stop_sequence stops', async () => {
    const long = await adapter.chat(chatCall({ messages: [{ role: 'user', content: 'a b c d e f' }] }, 3));
    expect(long.completion.choices[0]).toMatchObject({ message: { content: 'You said: a ' }, finish_reason: 'length' });
    const stopped = await adapter.chat(chatCall({ messages: [{ role: 'user', content: 'a b STOP c' }], stop: 'STOP' }));
    expect(stopped.completion.choices[0]).toMatchObject({ message: { content: 'You said: a b ' }, finish_reason: 'stop' });
  });

  it('round-trips a tool call: call → tool result → an answer containing it', async () => {
    const messages: Record<string, unknown>[] = [{ role: 'user', content: 'Please use weather {"city":"Paris"}' }];
    const first = await adapter.chat(chatCall({ messages, tools: [weather] }));
    const choice = first.completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe("I'll use weather.");
    const [toolCall] = choice?.message.tool_calls ?? [];
    expect(toolCall).toMatchObject({ id: expect.stringMatching(/^toolu_/), type: 'function', function: { name: 'weather' } });
    expect(JSON.parse(toolCall?.function.arguments ?? '')).toEqual({ city: 'Paris' });

    messages.push(choice?.message as Record<string, unknown>, { role: 'tool', tool_call_id: toolCall?.id, content: 'Sunny, 24 °C' });
    const second = await adapter.chat(chatCall({ messages, tools: [weather] }));
    expect(second.completion.choices[0]).toMatchObject({ message: { content: expect.stringContaining('Sunny, 24 °C') }, finish_reason: 'stop' });
    expect(fake.requests[1]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolCall?.id, content: 'Sunny, 24 °C' }],
    });
  });

  it('streams text: the role first, deltas that reassemble, the finish reason and usage last', async () => {
    const chunks = await collect(chatCall({ messages: [{ role: 'user', content: 'stream me please' }], stream: true }));
    expect(fake.requests[0]?.body.stream).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('You said: stream me please');
    expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(1);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const last = chunks.at(-1);
    expect(last?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
    expect(last?.usage).toMatchObject({ completion_tokens: 5 });
    expect(last?.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('streams a tool call whose argument fragments reassemble into valid JSON', async () => {
    const args = { city: 'Buenos Aires', units: 'metric', days: 3 };
    const chunks = await collect(chatCall({ messages: [{ role: 'user', content: `use weather ${JSON.stringify(args)}` }], tools: [weather], stream: true }));
    const calls = reassemble(chunks);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ id: expect.stringMatching(/^toolu_/), type: 'function', name: 'weather' });
    expect(JSON.parse(calls[0]?.arguments ?? '')).toEqual(args);
    expect(chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments).length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe("I'll use weather.");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams a forced call of a tool without arguments as {}', async () => {
    const chunks = await collect(
      chatCall({ messages: [{ role: 'user', content: 'what time is it?' }], tools: [{ type: 'function', function: { name: 'clock' } }], tool_choice: 'required', stream: true }),
    );
    expect(fake.requests[0]?.body.tool_choice).toEqual({ type: 'any' });
    expect(reassemble(chunks)).toEqual([expect.objectContaining({ name: 'clock', arguments: '{}' })]);
  });

  it.each([
    { status: 529, errorType: 'overloaded_error', expected: { status: 502, type: 'upstream_error' } },
    { status: 500, errorType: 'api_error', expected: { status: 502, type: 'upstream_error' } },
    { status: 429, errorType: 'rate_limit_error', headers: { 'retry-after': '7' }, expected: { status: 429, headers: { 'retry-after': '7' } } },
    { status: 400, errorType: 'invalid_request_error', expected: { status: 400, message: expect.stringContaining('Scripted failure') } },
  ])('an upstream $status is a $expected.status', async ({ status, errorType, headers, expected }) => {
    fake.script({ kind: 'error', status, errorType, ...(headers ? { headers } : {}) });
    await failsWith(adapter.chat(chatCall({ messages: [{ role: 'user', content: 'hi' }] })), expected);
    fake.script({ kind: 'error', status, errorType, ...(headers ? { headers } : {}) });
    await failsWith(collect(chatCall({ messages: [{ role: 'user', content: 'hi' }], stream: true })), expected);
  });

  it('throws from the iterator on an error event mid-stream, after the chunks already sent', async () => {
    fake.script({ kind: 'stream_error', errorType: 'overloaded_error', message: 'Overloaded (key test-key)', afterDeltas: 2 });
    const seen: ChatChunk[] = [];
    const reading = (async () => {
      for await (const chunk of adapter.chatStream(chatCall({ messages: [{ role: 'user', content: 'a long enough answer' }], stream: true }))) seen.push(chunk);
    })();
    await failsWith(reading, { status: 502, type: 'upstream_error', message: expect.stringMatching(/mid-stream: Overloaded \(key \[redacted\]\)$/) });
    expect(seen.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('You said: ');
  });

  it('stops a stream when the caller aborts', async () => {
    const controller = new AbortController();
    const call = { ...chatCall({ messages: [{ role: 'user', content: 'one two three four five' }], stream: true }), signal: controller.signal };
    const seen: ChatChunk[] = [];
    const reading = (async () => {
      for await (const chunk of adapter.chatStream(call)) {
        seen.push(chunk);
        controller.abort(new Error('client gone'));
      }
    })();
    await expect(reading).rejects.toThrow('client gone');
    expect(seen).toHaveLength(1);
  });

  it('lets a consumer leave a stream early without holding up the next request', async () => {
    for await (const chunk of adapter.chatStream(chatCall({ messages: [{ role: 'user', content: 'one two three four' }], stream: true }))) {
      expect(chunk.choices[0]?.delta.role).toBe('assistant');
      break;
    }
    const { completion } = await adapter.chat(chatCall({ messages: [{ role: 'user', content: 'again' }] }));
    expect(completion.choices[0]?.message.content).toBe('You said: again');
  });

  it('refuses an answer it cannot read with a 502', async () => {
    fake.script({ kind: 'raw', body: JSON.stringify({ type: 'message', content: 'nope' }) });
    await failsWith(adapter.chat(chatCall({ messages: [{ role: 'user', content: 'hi' }] })), { status: 502, code: 'upstream_bad_response' });
  });
});

describe('the fake refuses what the real API refuses', () => {
  const post = (body: unknown, headers: Record<string, string> = { 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01' }) =>
    fetch(`${fake.url}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const valid = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

  it.each<{ name: string; headers?: Record<string, string>; body: unknown; status: number; type: string }>([
    { name: 'no key', headers: { 'anthropic-version': '2023-06-01' }, body: valid, status: 401, type: 'authentication_error' },
    { name: 'a wrong key', headers: { 'x-api-key': 'other', 'anthropic-version': '2023-06-01' }, body: valid, status: 401, type: 'authentication_error' },
    { name: 'no version', headers: { 'x-api-key': 'test-key' }, body: valid, status: 400, type: 'invalid_request_error' },
    { name: 'no max_tokens', body: { ...valid, max_tokens: undefined }, status: 400, type: 'invalid_request_error' },
    { name: 'an assistant first', body: { ...valid, messages: [{ role: 'assistant', content: 'x' }] }, status: 400, type: 'invalid_request_error' },
    { name: 'two user turns in a row', body: { ...valid, messages: [valid.messages[0], valid.messages[0]] }, status: 400, type: 'invalid_request_error' },
    { name: 'an OpenAI field', body: { ...valid, n: 1 }, status: 400, type: 'invalid_request_error' },
  ])('$name', async ({ headers, body, status, type }) => {
    const response = await post(body, headers);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type, message: expect.any(String) } });
  });
});
