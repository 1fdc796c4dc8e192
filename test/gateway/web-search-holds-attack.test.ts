import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.js';
import { API } from '../helpers/api.js';
import { chatCompletion, completedResponse, heldFor as heldForOn, liveKeyOf, startRecordingUpstream, type RecordingUpstream } from '../helpers/holds-burst.js';
import { toMicro } from '../helpers/reliability.js';
import { writeProvidersFile } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Web searches are billed per call, so no request may run more of them than its hold paid for
 * (issue 23). These are the ways around the caps of 72aefc4 found by trying: an upstream that
 * searches for tools the gateway never sees (a stored prompt's), a chat completion that asks a
 * search-capable upstream to search, and caps that are not numbers a hold can take.
 */

/** How many searches the upstream runs for a request that may search and sets no cap. */
const UNCAPPED_SEARCHES = 12;
/** The OpenAI-type model's window, and the input a stored prompt or a conversation brings upstream. */
const CONTEXT = 2_000;
const UNSEEN_INPUT = 1_500;

/** Answers as OpenAI does: a Responses request that may search runs its searches, up to its `max_tool_calls`. */
function searchingAnswer(path: string, body: Record<string, unknown>) {
  if (path.endsWith('/responses')) {
    // A stored prompt brings its own tools: this one's has web search.
    const maySearch = body.prompt !== undefined || (Array.isArray(body.tools) && body.tools.length > 0);
    // A stored prompt's or a conversation's own items are input the request does not show.
    const input = body.prompt !== undefined || body.conversation !== undefined ? UNSEEN_INPUT : 5;
    const cap = typeof body.max_tool_calls === 'number' ? body.max_tool_calls : UNCAPPED_SEARCHES;
    const searches = maySearch ? Math.min(cap, UNCAPPED_SEARCHES) : 0;
    const calls = Array.from({ length: searches }, (_, n) => ({ type: 'web_search_call', id: `ws_${n}`, status: 'completed', action: { type: 'search', query: 'q' } }));
    return completedResponse(body.model, 'Sunny.', { input, output: 2 }, calls);
  }
  return chatCompletion(body.model, 'Sunny.', { input: 5, output: 2 }, 'stop');
}

let upstream: RecordingUpstream;
let anthropic: FakeAnthropic;
let t: TestServer;

/** 0.1 credit an input token, 0.2 an output token; a web search 1 credit. */
const PRICES = { input_price: 1000, output_price: 2000, web_search_price: 0.01 } as const;
/** A hold without searches: a short input and 10 output tokens come to a few credits. */
const WITHOUT_SEARCHES = 10;

beforeAll(async () => {
  upstream = await startRecordingUpstream(searchingAnswer);
  anthropic = await startFakeAnthropic({ apiKey: 'anthropic-test-key' });
  const file = writeProvidersFile({
    providers: [
      { id: 'oai', type: 'openai', base_url: upstream.url, api_key_env: 'UP_KEY', supports_responses: true, models: [{ id: 'gpt-search', ...PRICES, context_length: CONTEXT }] },
      { id: 'ant', type: 'anthropic', base_url: anthropic.url, api_key_env: 'ANT_KEY', models: [{ id: 'claude-fake', ...PRICES, context_length: 200_000 }] },
    ],
    // Anthropic first, then an OpenAI-type target: the Messages API serves it translated.
    routes: { mixed: { strategy: 'fallback', targets: [{ model: 'ant/claude-fake' }, { model: 'oai/gpt-search' }] } },
  });
  t = await startTestServer({ providersFile: file, env: { UP_KEY: 'up-key', ANT_KEY: 'anthropic-test-key' } });
});
afterAll(async () => {
  await t?.close();
  await upstream?.close();
  await anthropic?.close();
});

const keyWith = async (balanceCredits: number) => (await liveKeyOf(t, balanceCredits)).key;
const lastUpstreamBody = () => upstream.requests.at(-1)?.body ?? {};
const heldFor = (path: string, body: unknown) => heldForOn(t, path, body);

describe('a Responses request whose stored prompt brings the tools', () => {
  const body = { model: 'oai/gpt-search', input: 'Weather in Paris?', max_output_tokens: 10, prompt: { id: 'pmpt_with_web_search' } };

  it('is held for the searches it may run: a balance that pays for one search and not for ten is refused', async () => {
    const poor = await keyWith((await heldFor('/responses', { ...body, max_tool_calls: 1 })) + 3);
    expect((await t.call('POST', `${API}/responses`, { key: poor, body: { ...body, max_tool_calls: 1 } })).status).toBe(200);
    const before = upstream.requests.length;
    const refused = await t.call('POST', `${API}/responses`, { key: poor, body });
    expect(refused.status).toBe(402);
    expect(upstream.requests.length).toBe(before);
  });

  it('when served, is sent the cap it was held for and charged its whole cost, no more than the hold', async () => {
    const held = await heldFor('/responses', body);
    const key = await keyWith(held + 5);
    const served = await t.call('POST', `${API}/responses`, { key, body });
    expect(served.status).toBe(200);
    expect(lastUpstreamBody().max_tool_calls).toBe(10);
    expect(served.body.output.filter((item: { type: string }) => item.type === 'web_search_call')).toHaveLength(10);
    const cost = toMicro(UNSEEN_INPUT * 0.1 + 2 * 0.2 + 10 * 1);
    expect(toMicro(served.body.usage.cost)).toBe(cost);
    expect(cost).toBeLessThanOrEqual(toMicro(held));
  });

  it("the client's own max_tool_calls is kept and held", async () => {
    const key = await keyWith(await heldFor('/responses', { ...body, max_tool_calls: 2 }));
    const served = await t.call('POST', `${API}/responses`, { key, body: { ...body, max_tool_calls: 2 } });
    expect(served.status).toBe(200);
    expect(lastUpstreamBody().max_tool_calls).toBe(2);
  });
});

describe('a Responses request whose input the upstream adds (a stored prompt, a conversation)', () => {
  // Both are read upstream: the prompt's instructions and messages, the conversation's items.
  // Nothing of them is in the request, so its input is bound only by the model's window.
  const visible = { model: 'oai/gpt-search', input: 'Go on.', max_output_tokens: 10 };

  it.each([
    ['a stored prompt', { prompt: { id: 'pmpt_long' } }],
    ['a conversation', { conversation: 'conv_long' }],
    ['a conversation object', { conversation: { id: 'conv_long' } }],
  ])('%s is held for the whole window, and charged its whole cost on a balance that pays the hold', async (_what, extra) => {
    const body = { ...visible, ...extra };
    const held = await heldFor('/responses', body);
    expect(held).toBeGreaterThanOrEqual(CONTEXT * 0.1);
    const key = await keyWith(held + 1);
    const served = await t.call('POST', `${API}/responses`, { key, body });
    expect(served.status).toBe(200);
    expect(served.body.usage.input_tokens).toBe(UNSEEN_INPUT);
    const searches = served.body.output.filter((item: { type: string }) => item.type === 'web_search_call').length;
    expect(toMicro(served.body.usage.cost)).toBe(toMicro(UNSEEN_INPUT * 0.1 + 2 * 0.2 + searches * 1));
  });
});

describe('web-search caps that are not positive whole numbers', () => {
  const search = (max_uses: unknown) => ({ type: 'web_search_20250305', name: 'web_search', max_uses });
  const body = (max_uses: unknown) => ({ model: 'ant/claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [search(max_uses)] });
  const lastMaxUses = () => (anthropic.requests.at(-1)?.body as { tools?: { max_uses?: unknown }[] }).tools?.[0]?.max_uses;

  it.each([0, -3, 2.5, '4', true, {}])('max_uses %j is refused as Anthropic refuses it (a 400 naming it), before any upstream is asked', async (maxUses) => {
    const key = await keyWith(WITHOUT_SEARCHES + 10 + 5);
    const before = anthropic.requests.length;
    const answer = await t.call('POST', `${API}/messages`, { key, body: body(maxUses) });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(answer.body.error.message).toMatch(/^tools\.0\.max_uses: /);
    expect(anthropic.requests.length).toBe(before);
  });

  it.each([null, Number.MAX_SAFE_INTEGER + 2])('max_uses %j goes out as a cap the hold covered, never a 500', async (maxUses) => {
    const key = await keyWith(WITHOUT_SEARCHES + 10 + 5);
    const before = anthropic.requests.length;
    const answer = await t.call('POST', `${API}/messages`, { key, body: body(maxUses) });
    if (answer.status === 200) {
      expect(anthropic.requests.length).toBe(before + 1);
      const sent = lastMaxUses();
      expect(Number.isInteger(sent) && (sent as number) >= 1 && (sent as number) <= 10).toBe(true);
    } else {
      expect(answer.status).toBe(402);
      expect(anthropic.requests.length).toBe(before);
    }
  });

  it('a cap of 1e300 searches is a 402 naming what it may cost, before any upstream is asked', async () => {
    const key = await keyWith(1000);
    const before = anthropic.requests.length;
    const answer = await t.call('POST', `${API}/messages`, { key, body: body(1e300) });
    expect(answer.status).toBe(402);
    expect(anthropic.requests.length).toBe(before);
  });

  it('a Responses max_tool_calls past the safe integers is a 400 naming it', async () => {
    const key = await keyWith(100);
    const answer = await t.call('POST', `${API}/responses`, {
      key,
      body: { model: 'oai/gpt-search', input: 'Weather?', max_output_tokens: 10, tools: [{ type: 'web_search' }], max_tool_calls: 1e300 },
    });
    expect(answer.status).toBe(400);
  });
});

describe('a chat completion that asks its upstream to search the web', () => {
  // OpenAI's search models (web_search_options) and OpenRouter (web_search_options, the `web`
  // plugin) search on the chat endpoint and bill the search; chat usage reports no count of them,
  // and the chat service neither holds nor charges one. Owned by server/services/inference/chat.ts.
  const ask = (extra: Record<string, unknown>) => ({ model: 'oai/gpt-search', max_tokens: 10, messages: [{ role: 'user', content: 'Weather in Paris?' }], ...extra });

  it('web_search_options on a model with a web-search price is held for one search and its results, and charged the search', async () => {
    const plain = await heldFor('/chat/completions', ask({}));
    const searching = await heldFor('/chat/completions', ask({ web_search_options: {} }));
    // The fee, and a window of results as input, besides the field's own bytes.
    expect(searching - plain).toBeGreaterThan(1 + CONTEXT * 0.1 - 1);
    const answer = await t.call('POST', `${API}/chat/completions`, { key: await keyWith(searching + 1), body: ask({ web_search_options: {} }) });
    expect(answer.status).toBe(200);
    expect(lastUpstreamBody().web_search_options).toEqual({});
    const without = await t.call('POST', `${API}/chat/completions`, { key: await keyWith(searching + 1), body: ask({}) });
    // The search's fee (1 credit), and the few more input tokens the field is.
    const extra = toMicro(answer.body.usage.cost) - toMicro(without.body.usage.cost);
    expect(extra).toBeGreaterThanOrEqual(toMicro(1));
    expect(extra).toBeLessThan(toMicro(1 + 20 * 0.1));
  });

  it("OpenRouter's web plugin (billed per result, not priced here) is refused by name before any upstream", async () => {
    const before = upstream.requests.length;
    const answer = await t.call('POST', `${API}/chat/completions`, { key: await keyWith(1000), body: ask({ plugins: [{ id: 'web' }] }) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('plugins[0]');
    expect(upstream.requests.length).toBe(before);
  });
});

describe('the input a web search adds', () => {
  // Anthropic counts each search's results as input tokens of the turn (and OpenAI its search
  // content): a hold for the prompt's tokens and the searches' fees leaves them out.
  const body = { model: 'ant/claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }] };
  const RESULT_TOKENS = 30_000;
  const answered = {
    id: 'msg_searched',
    type: 'message',
    role: 'assistant',
    model: 'claude-fake',
    content: [{ type: 'text', text: 'Sunny.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: RESULT_TOKENS, output_tokens: 5, server_tool_use: { web_search_requests: 2 } },
  };

  it('is held for: a request whose two searches bring 30,000 tokens of results is charged its whole cost', async () => {
    const key = await keyWith((await heldFor('/messages', body)) + 1);
    anthropic.script({ kind: 'raw', body: JSON.stringify(answered) });
    const answer = await t.call('POST', `${API}/messages`, { key, body });
    expect(answer.status).toBe(200);
    expect(answer.body.usage.input_tokens).toBe(RESULT_TOKENS);
    expect(toMicro(answer.body.usage.cost)).toBe(toMicro(RESULT_TOKENS * 0.1 + 5 * 0.2 + 2 * 1));
  });
});

describe('a search where no cap reaches the upstream', () => {
  it('a Messages request with a web-search tool through a route served translated is a 400 naming the tool, and nothing is asked upstream', async () => {
    const key = await keyWith(1000);
    const before = { anthropic: anthropic.requests.length, openai: upstream.requests.length };
    const answer = await t.call('POST', `${API}/messages`, {
      key,
      body: { model: 'route/mixed', max_tokens: 10, messages: [{ role: 'user', content: 'Weather?' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('tools[0]');
    expect({ anthropic: anthropic.requests.length, openai: upstream.requests.length }).toEqual(before);
  });

  it("a chat completion's web_search_options to an Anthropic model is a 400 naming it (translation has no cap to send)", async () => {
    const key = await keyWith(1000);
    const answer = await t.call('POST', `${API}/chat/completions`, {
      key,
      body: { model: 'ant/claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'Weather?' }], web_search_options: {} },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('web_search_options');
  });
});

describe("a native Responses request with a hosted tool whose fee this server does not price", () => {
  // OpenAI bills these per use beside the tokens (a code interpreter container per session, file
  // search per call, each generated image); the Responses front door passes any tool type on to a
  // native upstream and charges tokens and web searches only. Owned by responses.ts (or its schema).
  const withTool = (tool: Record<string, unknown>) => ({ model: 'oai/gpt-search', input: 'Plot y = x^2.', max_output_tokens: 10, tools: [tool] });

  it('code_interpreter is refused by name, not served with its container fee unheld and uncharged', async () => {
    const answer = await t.call('POST', `${API}/responses`, { key: await keyWith(1000), body: withTool({ type: 'code_interpreter', container: { type: 'auto' } }) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('tools[0]');
  });

  it('image_generation is refused by name, not served with its images unheld and uncharged', async () => {
    const answer = await t.call('POST', `${API}/responses`, { key: await keyWith(1000), body: withTool({ type: 'image_generation' }) });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('tools[0]');
  });
});


describe("a native Messages request with Anthropic's code execution, billed by the container hour", () => {
  // Anthropic bills code execution containers by the hour, except beside a web search or web
  // fetch tool of version 20260209 or later; the Messages front door charges tokens and searches.
  const withTools = (tools: Record<string, unknown>[]) => ({ model: 'ant/claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'Plot y = x^2.' }], tools });

  it.each(['code_execution_20250522', 'code_execution_20250825'])('%s is refused by name before any upstream, not served with its containers unheld and uncharged', async (type) => {
    const before = anthropic.requests.length;
    const answer = await t.call('POST', `${API}/messages`, {
      key: await keyWith(1000),
      body: withTools([{ type: 'web_search_20250305', name: 'web_search' }, { type, name: 'code_execution' }]),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(answer.body.error.message).toContain(type);
    expect(answer.body.error.param).toBe('tools[1]');
    expect(anthropic.requests.length).toBe(before);
  });

  it('through a route served translated (no container there to run it), a 400 naming it, and nothing is asked upstream', async () => {
    const before = { anthropic: anthropic.requests.length, openai: upstream.requests.length };
    const answer = await t.call('POST', `${API}/messages`, {
      key: await keyWith(1000),
      body: { ...withTools([{ type: 'code_execution_20250825', name: 'code_execution' }]), model: 'route/mixed' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('tools[0]');
    expect({ anthropic: anthropic.requests.length, openai: upstream.requests.length }).toEqual(before);
  });

  it('beside web_fetch_20260209, where Anthropic runs it for tokens alone, it is served', async () => {
    const answer = await t.call('POST', `${API}/messages`, {
      key: await keyWith(1000),
      body: withTools([{ type: 'web_fetch_20260209', name: 'web_fetch' }, { type: 'code_execution_20250825', name: 'code_execution' }]),
    });
    expect(answer.status).toBe(200);
    expect(anthropic.requests.at(-1)?.body).toMatchObject({ tools: [{ type: 'web_fetch_20260209' }, { type: 'code_execution_20250825' }] });
  });
});
