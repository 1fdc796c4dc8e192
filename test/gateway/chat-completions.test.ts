import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { API, expectApiError, useTestServer } from '../helpers/api.js';

const t = useTestServer();
const sdk = (key = t.liveKey) => new OpenAI({ apiKey: key, baseURL: `${t.url}${API}`, maxRetries: 0 });

/** Reads a text/event-stream body into its `data:` payloads. */
async function sseData(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const lines = block.split('\n');
      expect(lines.some((l) => l.startsWith('data: ')), `every event has a data line: ${block}`).toBe(true);
      return lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    });
}

function post(body: unknown, key = t.liveKey) {
  return fetch(`${t.url}${API}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
}

describe('chat completions with local/echo', () => {
  it('answers with the user’s last message verbatim, in OpenAI’s shape', async () => {
    const answer = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello *there*' }] }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion', model: 'local/echo' });
    expect(answer.body.choices[0].message.content).toContain('hello *there*');
    expect(answer.body.choices[0].finish_reason).toBe('stop');
    expect(answer.body.usage.total_tokens).toBe(answer.body.usage.prompt_tokens + answer.body.usage.completion_tokens);
  });

  it('streams: role on the first delta, finish_reason on the last, usage when asked, then [DONE]', async () => {
    const response = await post({
      model: 'local/echo',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream me please' }],
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = await sseData(response);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const withChoices = chunks.filter((c) => c.choices.length > 0);
    expect(withChoices.at(-1).choices[0].finish_reason).toBe('stop');
    expect(withChoices.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(withChoices.map((c) => c.choices[0].delta.content ?? '').join('')).toContain('stream me please');
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('sends no usage chunk unless stream_options.include_usage is set', async () => {
    const data = await sseData(await post({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'x' }] }));
    expect(data.slice(0, -1).every((d) => !('usage' in JSON.parse(d)))).toBe(true);
  });

  it('calls an offered tool on a `!tool NAME {json}` line, and answers with the result after it', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const first = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', tools, messages: [{ role: 'user', content: 'please\n!tool lookup {"q":"svc"}' }] },
    });
    const call = first.body.choices[0].message.tool_calls[0];
    expect(first.body.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'lookup', arguments: '{"q":"svc"}' } });
    const second = await t.call('POST', `${API}/chat/completions`, {
      body: {
        model: 'local/echo',
        tools,
        messages: [
          { role: 'user', content: 'please\n!tool lookup {"q":"svc"}' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'svc is a platform' },
        ],
      },
    });
    expect(second.body.choices[0].message.content).toContain('svc is a platform');
  });

  it('does not call a tool that is not offered', async () => {
    const answer = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', messages: [{ role: 'user', content: '!tool lookup {}' }] },
    });
    expect(answer.body.choices[0].message.tool_calls).toBeUndefined();
  });
});

describe('chat completions: bad input', () => {
  it('an unknown provider or model is a 404 naming the model', async () => {
    expectApiError(
      await t.call('POST', `${API}/chat/completions`, { body: { model: 'nope/x', messages: [{ role: 'user', content: 'x' }] } }),
      404,
      { code: 'model_not_found', param: 'model' },
    );
    expectApiError(
      await t.call('POST', `${API}/chat/completions`, { body: { model: 'local/nope', messages: [{ role: 'user', content: 'x' }] } }),
      404,
      { code: 'model_not_found', param: 'model' },
    );
  });

  it('stream: true with an invalid body answers JSON 400, not a stream', async () => {
    const response = await post({ model: 'local/echo', stream: true, messages: [{ role: 'wizard', content: 'x' }] });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as any).error.param).toMatch(/^messages\[0\]/);
  });

  it('tools of the wrong shape are a 400 naming the tool', async () => {
    const answer = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', tools: [{ type: 'function' }], messages: [{ role: 'user', content: 'x' }] },
    });
    expectApiError(answer, 400, { param: 'tools[0].function' });
  });
});

describe('the official openai SDK', () => {
  it('creates a completion', async () => {
    const completion = await sdk().chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'from the SDK' }] });
    expect(completion.choices[0]?.message.content).toContain('from the SDK');
  });

  it('streams a completion', async () => {
    const stream = await sdk().chat.completions.create({
      model: 'local/echo',
      stream: true,
      messages: [{ role: 'user', content: 'streamed through the SDK' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('streamed through the SDK');
  });

  it('works with a test key (local provider only)', async () => {
    const completion = await sdk(t.testKey).chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'sandbox' }] });
    expect(completion.choices[0]?.message.content).toContain('sandbox');
  });
});

describe('image_model', () => {
  const imageTool = { type: 'function', function: { name: 'generate_image', parameters: { type: 'object' } } };
  const ask = { role: 'user', content: '!tool generate_image {"prompt":"a red bicycle","model":"cheap-model"}' };

  it('rewrites the model argument of an image tool call', async () => {
    const answer = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', tools: [imageTool], image_model: 'images/best', messages: [ask] },
    });
    const args = JSON.parse(answer.body.choices[0].message.tool_calls[0].function.arguments);
    expect(args).toEqual({ prompt: 'a red bicycle', model: 'images/best' });
  });

  it('rewrites it also when the call arrives in streamed fragments', async () => {
    const data = await sseData(await post({ model: 'local/echo', stream: true, tools: [imageTool], image_model: 'images/best', messages: [ask] }));
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.any(String), function: { name: 'generate_image' } });
    const args = deltas.map((d: { function?: { arguments?: string } }) => d.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).toEqual({ prompt: 'a red bicycle', model: 'images/best' });
    expect(chunks.filter((c) => c.choices.length > 0).at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('leaves other tool calls alone', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup' } }];
    const answer = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', tools, image_model: 'images/best', messages: [{ role: 'user', content: '!tool lookup {"model":"x"}' }] },
    });
    expect(JSON.parse(answer.body.choices[0].message.tool_calls[0].function.arguments)).toEqual({ model: 'x' });
  });
});
