import { describe, expect, it } from 'vitest';
import { microToCredits } from '../../server/store/money.js';
import { API, appPath, createOwnerApp, expectStatus } from '../helpers/api.js';
import { useServerOnFakeUpstreams } from '../helpers/upstreams.js';

/**
 * Cached tokens and cost in the usage reports (#23): an Anthropic turn that writes the prompt
 * cache and one that reads it, and an OpenAI turn with cached tokens, show up in `usage models`,
 * the app's usage and its per-user report with each count the charge used and the credits it
 * charged — the provider's published price, to the micro-credit.
 *
 * Prices, USD per million (× 100 = micro-credits a token): claude-sonnet-4-5 3 input, 0.3 cache
 * read, 3.75 five-minute write, 15 output; gpt-fake 2 input, 0.5 cached input, 8 output.
 */
const server = useServerOnFakeUpstreams((urls) => [
  {
    id: 'claude',
    type: 'anthropic',
    base_url: urls.anthropic,
    api_key_env: 'FAKE_ANTHROPIC_KEY',
    models: [{ id: 'claude-sonnet-4-5', input_price: 3, cached_input_price: 0.3, cache_write_price: 3.75, output_price: 15, context_length: 200_000 }],
  },
  {
    id: 'acme',
    type: 'openai',
    base_url: urls.openai,
    api_key_env: 'FAKE_OPENAI_KEY',
    models: [{ id: 'gpt-fake', input_price: 2, cached_input_price: 0.5, output_price: 8, context_length: 200_000, max_output_tokens: 100 }],
  },
]);

interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}
interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** Micro-credits of an Anthropic usage object: input excludes the cache's parts there. */
const claudeMicro = (u: AnthropicUsage) =>
  u.input_tokens * 300 + (u.cache_read_input_tokens ?? 0) * 30 + (u.cache_creation_input_tokens ?? 0) * 375 + u.output_tokens * 1500;
/** Micro-credits of an OpenAI usage object: prompt_tokens include the cached ones. */
const gptMicro = (u: OpenAIUsage) => {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return (u.prompt_tokens - cached) * 200 + cached * 50 + u.completion_tokens * 800;
};

const sum = <T>(items: T[], of: (item: T) => number) => items.reduce((total, item) => total + of(item), 0);

describe('usage reports show cached tokens and what they cost', () => {
  it('an Anthropic cache write and read and an OpenAI cached turn: counts and credits in every report', async () => {
    const { t } = server;
    const app = await createOwnerApp(t, { balanceCredits: 500 });
    const key = (await t.server.services.apiKeys.create(app.appUuid, { name: 'cache', is_test: false, role: 'inference' })).secret;
    const balanceMicro = async () => Math.round((await t.call('GET', `${API}/credits/balance`, { key })).body.credits * 1_000_000);
    const before = await balanceMicro();

    // Anthropic: the first turn writes the system prompt to the cache, the second reads it.
    const system = [{ type: 'text', text: 'Project rules and context. '.repeat(400), cache_control: { type: 'ephemeral' } }];
    const claude: AnthropicUsage[] = [];
    for (const question of ['first', 'second']) {
      const answer = await t.call('POST', `${API}/messages`, {
        key,
        headers: { 'anthropic-version': '2023-06-01' },
        body: { model: 'claude/claude-sonnet-4-5', max_tokens: 20, system, messages: [{ role: 'user', content: question }] },
      });
      expectStatus(answer, 200);
      claude.push(answer.body.usage);
    }
    expect(claude[0]?.cache_creation_input_tokens).toBeGreaterThan(1000);
    expect(claude[1]?.cache_read_input_tokens).toBeGreaterThan(1000);

    // OpenAI: the same long prompt twice; the second comes back with cached_tokens.
    const gpt: OpenAIUsage[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await t.call('POST', `${API}/chat/completions`, {
        key,
        body: { model: 'acme/gpt-fake', messages: [{ role: 'system', content: 'Answer briefly. '.repeat(400) }, { role: 'user', content: 'hi' }] },
      });
      expectStatus(answer, 200);
      gpt.push(answer.body.usage);
    }
    expect(gpt[1]?.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(1024);

    const claudeCharged = sum(claude, claudeMicro);
    const gptCharged = sum(gpt, gptMicro);
    // What the balance lost is the published price of each turn.
    expect(before - (await balanceMicro())).toBe(claudeCharged + gptCharged);

    const claudeRow = {
      model: 'claude/claude-sonnet-4-5',
      requests: 2,
      refused_requests: 0,
      input_tokens: sum(claude, (u) => u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0)),
      cached_input_tokens: sum(claude, (u) => u.cache_read_input_tokens ?? 0),
      cache_write_tokens: sum(claude, (u) => u.cache_creation_input_tokens ?? 0),
      output_tokens: sum(claude, (u) => u.output_tokens),
      reasoning_tokens: 0,
      credits: microToCredits(claudeCharged),
    };
    const gptRow = {
      model: 'acme/gpt-fake',
      requests: 2,
      refused_requests: 0,
      input_tokens: sum(gpt, (u) => u.prompt_tokens),
      cached_input_tokens: sum(gpt, (u) => u.prompt_tokens_details?.cached_tokens ?? 0),
      cache_write_tokens: 0,
      output_tokens: sum(gpt, (u) => u.completion_tokens),
      reasoning_tokens: 0,
      credits: microToCredits(gptCharged),
    };
    const byCredits = [claudeRow, gptRow].sort((a, b) => b.credits - a.credits);
    const { model: _c, ...claudeTotals } = claudeRow;
    const { model: _g, ...gptTotals } = gptRow;
    const totals = Object.fromEntries(
      Object.entries(claudeTotals).map(([name, value]) => [name, name === 'credits' ? microToCredits(claudeCharged + gptCharged) : value + gptTotals[name as keyof typeof gptTotals]]),
    );

    const models = await t.call('GET', `${API}/usage/models`, { key });
    expectStatus(models, 200);
    expect(models.body.data).toEqual(byCredits);

    const usage = await t.call('GET', appPath(app.appUuid, 'usage'));
    expectStatus(usage, 200);
    expect(usage.body.models).toEqual(byCredits);
    expect(usage.body.totals).toEqual(totals);
    expect(usage.body.data.filter((bucket: { requests: number }) => bucket.requests > 0)).toEqual([{ start: expect.any(String), ...totals }]);

    const users = await t.call('GET', appPath(app.appUuid, 'usage', 'users'));
    expectStatus(users, 200);
    expect(users.body).toMatchObject({ total: 1, data: [{ address: null, ...totals }] });
  });
});
