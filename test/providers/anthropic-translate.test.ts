import { describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { createStreamTranslator, fromAnthropicMessage } from '../../server/providers/anthropic/from-anthropic.js';
import { toAnthropicRequest } from '../../server/providers/anthropic/to-anthropic.js';
import type { ChatChunk } from '../../server/providers/types.js';
import { ChatCompletionBody } from '../../src/contract/schemas/inference.js';

const MODEL = { provider: 'anthropic', model: 'anthropic/claude-test' };

function request(body: Record<string, unknown>) {
  const parsed = ChatCompletionBody.parse({ model: 'anthropic/claude-test', ...body });
  return toAnthropicRequest({ model: 'claude-test', body: parsed, maxOutputTokens: 321 });
}

const user = (content: unknown) => ({ role: 'user', content });
const text = (t: string) => ({ type: 'text', text: t });
const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
const weather = { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const clock = { type: 'function', function: { name: 'clock', description: 'The time' } };

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('did not throw');
}

describe('OpenAI chat request → Anthropic Messages request', () => {
  it.each([
    {
      name: 'system and developer messages become the top-level system, joined',
      body: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'developer', content: [text('Use '), text('French.')] }, user('hi')] },
      expected: { system: 'Be brief.\n\nUse French.', messages: [{ role: 'user', content: [text('hi')] }] },
    },
    {
      name: 'text parts become text blocks, empty ones are dropped',
      body: { messages: [user([text('a'), text(''), text('b')])] },
      expected: { messages: [{ role: 'user', content: [text('a'), text('b')] }] },
    },
    {
      name: 'images: data: URLs as base64, http(s) URLs as url sources',
      body: {
        messages: [
          user([
            text('what is this?'),
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
          ]),
        ],
      },
      expected: {
        messages: [
          {
            role: 'user',
            content: [
              text('what is this?'),
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            ],
          },
        ],
      },
    },
    {
      name: 'inline files become documents',
      body: { messages: [user([{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }])] },
      expected: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }] }] },
    },
    {
      name: 'consecutive messages of one role are merged into one turn',
      body: { messages: [user('one'), user('two'), { role: 'assistant', content: 'three' }, { role: 'assistant', content: [text('four')] }] },
      expected: {
        messages: [
          { role: 'user', content: [text('one'), text('two')] },
          { role: 'assistant', content: [text('three'), text('four')] },
        ],
      },
    },
    {
      name: 'tool calls become tool_use blocks, tool results and the next user message one user turn',
      body: {
        messages: [
          user('weather and time?'),
          { role: 'assistant', content: '', tool_calls: [call('call_1', 'weather', '{"city":"Paris"}'), call('call.2', 'clock', '')] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call.2', content: [text('noon')] },
          user('thanks'),
        ],
      },
      expected: {
        messages: [
          { role: 'user', content: [text('weather and time?')] },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'call_2', name: 'clock', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
              { type: 'tool_result', tool_use_id: 'call_2', content: [text('noon')] },
              text('thanks'),
            ],
          },
        ],
      },
    },
    {
      name: 'assistant text before its tool calls is kept',
      body: { messages: [user('x'), { role: 'assistant', content: 'Let me look.', tool_calls: [call('c', 'weather', '{}')] }] },
      expected: {
        messages: [
          { role: 'user', content: [text('x')] },
          { role: 'assistant', content: [text('Let me look.'), { type: 'tool_use', id: 'c', name: 'weather', input: {} }] },
        ],
      },
    },
    {
      name: 'tools: parameters as input_schema, {type: object} by default',
      body: { messages: [user('x')], tools: [weather, clock] },
      expected: {
        tools: [
          { name: 'weather', input_schema: weather.function.parameters },
          { name: 'clock', description: 'The time', input_schema: { type: 'object' } },
        ],
      },
    },
    {
      name: 'sampling: temperature clamped to 1, top_p, stop, user',
      body: { messages: [user('x')], temperature: 1.7, top_p: 0.9, stop: 'END', user: 'u-1' },
      expected: { temperature: 1, top_p: 0.9, stop_sequences: ['END'], metadata: { user_id: 'u-1' } },
    },
    {
      name: 'temperature within 0–1 is passed as is, a stop list as is',
      body: { messages: [user('x')], temperature: 0.3, stop: ['a', 'b'] },
      expected: { temperature: 0.3, stop_sequences: ['a', 'b'] },
    },
  ])('$name', ({ body, expected }) => {
    const translated = request(body);
    expect(translated).toMatchObject({ model: 'claude-test', max_tokens: 321, ...expected });
    if (!('system' in expected)) expect(translated.system).toBeUndefined();
  });

  it('leaves OpenAI-only fields out', () => {
    const translated = request({ messages: [user('x')], seed: 1, presence_penalty: 1, response_format: { type: 'text' }, n: 1, stream: true });
    expect(Object.keys(translated).sort()).toEqual(['max_tokens', 'messages', 'model']);
  });

  it.each([
    { tool_choice: undefined, parallel_tool_calls: undefined, expected: undefined },
    { tool_choice: 'auto', parallel_tool_calls: undefined, expected: { type: 'auto' } },
    { tool_choice: 'required', parallel_tool_calls: undefined, expected: { type: 'any' } },
    { tool_choice: 'none', parallel_tool_calls: undefined, expected: { type: 'none' } },
    { tool_choice: { type: 'function', function: { name: 'clock' } }, parallel_tool_calls: undefined, expected: { type: 'tool', name: 'clock' } },
    { tool_choice: undefined, parallel_tool_calls: false, expected: { type: 'auto', disable_parallel_tool_use: true } },
    { tool_choice: 'required', parallel_tool_calls: false, expected: { type: 'any', disable_parallel_tool_use: true } },
    { tool_choice: 'none', parallel_tool_calls: false, expected: { type: 'none' } },
    { tool_choice: 'auto', parallel_tool_calls: true, expected: { type: 'auto' } },
  ])('tool_choice $tool_choice with parallel_tool_calls $parallel_tool_calls → $expected', ({ tool_choice, parallel_tool_calls, expected }) => {
    const translated = request({ messages: [user('x')], tools: [weather, clock], tool_choice, parallel_tool_calls });
    expect(translated.tool_choice).toEqual(expected);
  });

  it('sends no tool_choice without tools (Anthropic refuses it)', () => {
    expect(request({ messages: [user('x')], tool_choice: 'none' }).tool_choice).toBeUndefined();
  });

  it.each([
    { args: '{"city": "Par', param: 'messages[1].tool_calls[1].function.arguments' },
    { args: '[1, 2]', param: 'messages[1].tool_calls[1].function.arguments' },
    { args: '"Paris"', param: 'messages[1].tool_calls[1].function.arguments' },
  ])('tool call arguments $args are a 400 naming the message', ({ args, param }) => {
    const error = caught(() =>
      request({ messages: [user('x'), { role: 'assistant', content: null, tool_calls: [call('a', 'clock', '{}'), call('b', 'weather', args)] }] }),
    );
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', param });
    expect(error.message).toContain(param);
    expect(error.message).toContain("'b'");
  });

  it.each([
    { part: { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }, message: 'audio' },
    { part: { type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }, message: 'image' },
    { part: { type: 'file', file: { file_id: 'file-1' } }, message: 'files' },
  ])('a $part.type part Anthropic cannot take is a 400', ({ part, message }) => {
    const error = caught(() => request({ messages: [user('x'), { role: 'assistant', content: 'y' }, user([text('z'), part])] }));
    expect(error).toMatchObject({ status: 400, param: 'messages[2].content[1]' });
    expect(error.message).toContain(message);
  });
});

const message = (over: Record<string, unknown> = {}) => ({
  id: 'msg_01abc',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content: [text('Hello')],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 3 },
  ...over,
});

describe('Anthropic message → OpenAI chat completion', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, 'stop'],
  ])('stop_reason %s → finish_reason %s', (stopReason, finish) => {
    expect(fromAnthropicMessage(message({ stop_reason: stopReason }), MODEL).completion.choices[0]?.finish_reason).toBe(finish);
  });

  it('concatenates text blocks, skips unknown blocks, and counts usage (cache included)', () => {
    const { completion, usage } = fromAnthropicMessage(
      message({
        content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, text('Hel'), text('lo')],
        usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 },
      }),
      MODEL,
    );
    expect(completion).toMatchObject({
      id: 'chatcmpl-01abc',
      object: 'chat.completion',
      model: 'anthropic/claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      // The cache read is OpenAI's cached_tokens, inside prompt_tokens as OpenAI counts them.
      usage: { prompt_tokens: 17, completion_tokens: 3, total_tokens: 20, prompt_tokens_details: { cached_tokens: 5 } },
    });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    // The split the gateway prices: 5 read, 2 written for five minutes (the default ttl).
    expect(usage).toEqual({ inputTokens: 17, outputTokens: 3, cacheReadTokens: 5, cacheWriteTokens: 2, cacheWrite1hTokens: 0 });
  });

  it('turns tool_use blocks into tool calls', () => {
    const { completion } = fromAnthropicMessage(
      message({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }], stop_reason: 'tool_use' }),
      MODEL,
    );
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
    });
  });

  it.each([
    { name: 'no content', raw: message({ content: undefined }) },
    { name: 'a text block without text', raw: message({ content: [{ type: 'text' }] }) },
    { name: 'a tool_use block without input', raw: message({ content: [{ type: 'tool_use', id: 't', name: 'n' }] }) },
    { name: 'not an object', raw: 'oops' },
  ])('an answer with $name is a 502', ({ raw }) => {
    const error = caught(() => fromAnthropicMessage(raw, MODEL));
    expect(error).toMatchObject({ status: 502, code: 'upstream_bad_response' });
  });
});

describe('Anthropic stream events → OpenAI chunks', () => {
  const sse = (data: Record<string, unknown>) => ({ event: String(data.type), data: JSON.stringify(data) });
  const start = sse({ type: 'message_start', message: { id: 'msg_s', usage: { input_tokens: 7, output_tokens: 1 } } });

  function run(events: { event: string | null; data: string }[]): ChatChunk[] {
    const translator = createStreamTranslator(MODEL);
    const chunks = events.flatMap((event) => translator.push(event));
    translator.end();
    return chunks;
  }

  it('gives a tool without streamed arguments the input of its start ({} for none)', () => {
    const chunks = run([
      start,
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_a', name: 'clock', input: {} } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } }),
      sse({ type: 'message_stop' }),
    ]);
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'clock', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
      {},
    ]);
    expect(chunks.at(-1)).toMatchObject({ id: 'chatcmpl-s', choices: [{ finish_reason: 'tool_calls' }], usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 } });
  });

  it('reports the cache read of message_start as cached_tokens and its writes as cache_write_tokens; message_delta’s counts, where it has them, win', () => {
    const cachedStart = sse({ type: 'message_start', message: { id: 'msg_c', usage: { input_tokens: 3, output_tokens: 1, cache_read_input_tokens: 40, cache_creation_input_tokens: 8 } } });
    const text = [
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      sse({ type: 'content_block_stop', index: 0 }),
    ];
    const fromStart = run([cachedStart, ...text, sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }), sse({ type: 'message_stop' })]);
    expect(fromStart.at(-1)?.usage).toEqual({ prompt_tokens: 51, completion_tokens: 2, total_tokens: 53, prompt_tokens_details: { cached_tokens: 40, cache_write_tokens: 8 } });

    const newer = sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 3, output_tokens: 2, cache_read_input_tokens: 48, cache_creation_input_tokens: 0 } });
    const fromDelta = run([cachedStart, ...text, newer, sse({ type: 'message_stop' })]);
    expect(fromDelta.at(-1)?.usage).toEqual({ prompt_tokens: 51, completion_tokens: 2, total_tokens: 53, prompt_tokens_details: { cached_tokens: 48 } });
  });

  it('skips pings, thinking blocks and event types it does not know', () => {
    const chunks = run([
      start,
      sse({ type: 'ping' }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'something_new', x: 1 }),
      sse({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
      sse({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } }),
      sse({ type: 'content_block_stop', index: 1 }),
      sse({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 1 } }),
      sse({ type: 'message_stop' }),
    ]);
    expect(chunks.map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hi', undefined]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it.each([
    {
      name: 'an error event is a 502 with the upstream’s message',
      events: [start, sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })],
      expected: { status: 502, type: 'upstream_error', message: expect.stringContaining('Overloaded') },
    },
    {
      name: 'an event that is not JSON is a 502',
      events: [start, { event: 'content_block_delta', data: '{nope' }],
      expected: { status: 502, code: 'upstream_bad_response' },
    },
    {
      name: 'a known event of the wrong shape is a 502',
      events: [start, sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } })],
      expected: { status: 502, code: 'upstream_bad_response' },
    },
    {
      name: 'a stream that ends before message_stop is a 502',
      events: [start],
      expected: { status: 502, code: 'upstream_bad_response', message: expect.stringContaining('message_stop') },
    },
  ])('$name', ({ events, expected }) => {
    expect(caught(() => run(events))).toMatchObject(expected);
  });
});
