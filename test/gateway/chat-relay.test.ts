import { describe, expect, it, vi } from 'vitest';
import type { Behaviour } from '../fixtures/fake-openai.js';
import { API } from '../helpers/api.js';
import { useServerOnFakeUpstreams } from '../helpers/upstreams.js';

// The relay as it runs in production, where upstream answers are read only for what metering needs.
vi.mock('../../server/providers/answer-checks.js', () => ({ checkRelayedAnswers: false }));

/**
 * Chat completions on an OpenAI-type upstream, relayed: the client gets the upstream's chunks as
 * they were written, with the gateway's model id and the usage's cost the only changes.
 */
const on = useServerOnFakeUpstreams(({ openai }) => [
  { id: 'acme', type: 'openai', base_url: openai, api_key_env: 'FAKE_OPENAI_KEY', models: [{ id: 'gpt-fake', input_price: 0.5, output_price: 1.5 }] },
]);

const sse = (...events: string[]): Behaviour => ({
  kind: 'respond',
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: events.map((data) => `data: ${data}\n\n`).join(''),
});

async function chat(body: object) {
  const response = await fetch(`${on.t.url}${API}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${on.t.liveKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  return { status: response.status, text: await response.text() };
}

const dataOf = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => event.slice('data: '.length));

describe('chat completions relayed from an OpenAI-type upstream', () => {
  // Spacing, field order, a field the gateway has never heard of, and `model` inside the content.
  const first = '{"id":"c1", "object":"chat.completion.chunk","created":1,"model" : "gpt-fake-0613","x_novel":{"model":"inner"},"choices":[{"index":0,"delta":{"role":"assistant","content":"say \\"model\\":\\"x\\""},"finish_reason":null}]}';
  const last = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-fake-0613","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}';
  const usage = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-fake-0613","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}';

  it('passes each chunk on as written but for the model id, then the usage with its cost, then [DONE]', async () => {
    on.upstreams.openai.script(sse(first, last, usage, '[DONE]'));
    const { status, text } = await chat({ stream: true, stream_options: { include_usage: true } });
    expect(status).toBe(200);
    const events = dataOf(text);
    const ours = (data: string) => data.replace('"model" : "gpt-fake-0613"', '"model" : "acme/gpt-fake"').replace('"model":"gpt-fake-0613"', '"model":"acme/gpt-fake"');
    expect(events.slice(0, 2)).toEqual([ours(first), ours(last)]);
    expect(JSON.parse(events[2]!)).toEqual({ ...JSON.parse(usage), model: 'acme/gpt-fake', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, cost: expect.any(Number) } });
    expect(JSON.parse(events[2]!).usage.cost).toBeGreaterThan(0);
    expect(events[3]).toBe('[DONE]');
  });

  it('leaves the usage out when the client did not ask for it', async () => {
    on.upstreams.openai.script(sse(first, usage, '[DONE]'));
    const events = dataOf((await chat({ stream: true })).text);
    expect(events).toHaveLength(2);
    expect(events[1]).toBe('[DONE]');
  });

  it("leaves out each chunk's usage: null when the client did not ask for usage, as OpenAI does", async () => {
    on.upstreams.openai.script(sse(last, usage, '[DONE]'));
    const events = dataOf((await chat({ stream: true })).text);
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[0]!)).toEqual({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'acme/gpt-fake', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  });

  it('ends a stream with one error event when the upstream sends what it cannot read', async () => {
    on.upstreams.openai.script(sse(first, '{"choices":"no"}', '[DONE]'));
    const events = dataOf((await chat({ stream: true })).text);
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[1]!).error).toMatchObject({ type: 'upstream_error', code: 'upstream_bad_response' });
  });

  it('returns an answer as the upstream wrote it, under the gateway’s model id, its usage with the cost', async () => {
    const answer = { id: 'x', object: 'chat.completion', created: 1, model: 'gpt-fake-0613', x_novel: [1], choices: [{ index: 0, message: { role: 'assistant', content: 'hey' }, finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } };
    on.upstreams.openai.script({ kind: 'respond', status: 200, body: answer });
    const { status, text } = await chat({});
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ ...answer, model: 'acme/gpt-fake', usage: { ...answer.usage, cost: expect.any(Number) } });
  });

  it('answers an answer it cannot read with a 502, never a 500', async () => {
    on.upstreams.openai.script({ kind: 'respond', status: 200, body: { id: 'x', choices: 'none' } });
    const { status, text } = await chat({});
    expect(status).toBe(502);
    expect(JSON.parse(text).error).toMatchObject({ code: 'upstream_bad_response' });
  });
});
