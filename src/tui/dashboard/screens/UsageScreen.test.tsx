import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { API, chatWith, createApp, createKey, expectStatus, sandboxUser, useTestServer } from '../../../../test/helpers/api.js';
import { pricedProvider } from '../../../../test/helpers/providers.js';
import { createLocalAdapter } from '../../../../server/providers/local/adapter.js';
import type { ProviderAdapter } from '../../../../server/providers/types.js';
import { ApiRequestError } from '../../../client/errors.js';
import { openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

/** The local echo, with the first 4 input tokens of each answer read from the prompt cache (as a provider reports it). */
function cachingAdapter(): ProviderAdapter {
  const local = createLocalAdapter();
  return {
    ...local,
    async chat(call) {
      const answer = await local.chat(call);
      return { ...answer, usage: { ...answer.usage, cacheReadTokens: Math.min(4, answer.usage.inputTokens) } };
    },
  };
}

// A paid model beside the free local one, so requests cost visible credits; its input is partly cached.
const t = useTestServer({ providers: [pricedProvider(cachingAdapter())] });
afterEach(() => cleanup());

const DAY = 24 * 3_600_000;

/**
 * Usage of the bootstrap app: 3 paid requests two days ago, 2 free ones today, and 1 by a user
 * signed in through the sandbox: test usage, which the dashboard's live key does not see.
 */
async function makeUsage() {
  const ask = (model: string) =>
    t.call('POST', `${API}/chat/completions`, { body: { model, max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] } });
  t.clock.advance(-2 * DAY);
  for (let i = 0; i < 3; i++) expectStatus(await ask('paid/echo'), 200);
  t.clock.advance(2 * DAY);
  for (let i = 0; i < 2; i++) expectStatus(await ask('local/echo'), 200);
  const user = await sandboxUser(t);
  expectStatus(await chatWith(t, user.token), 200);
  // The window ends now, and excludes that instant: let the test clock move on a minute.
  t.clock.advance(60_000);
  return { user: user.address };
}

const open = (api = serverApi(t)) => openDashboard({ api, screen: 'usage', now: () => t.clock.now() });

describe('the Usage screen', () => {
  it('charts credits per day over 30 days, with the models and the top users, in 80×24', async () => {
    const { user } = await makeUsage();
    const dash = open();
    await dash.shows('Usage of Default app, last 30 days');
    await dash.shows('5 requests');
    // The paid requests' cached input is in the totals and beside their model.
    expect(dash.screen()).toMatch(/2026-01-30 – 2026-03-01: 5 requests · [\d.]+ credits · [\d,]+ tokens in \(12 cached\)/);
    // What a bar counts, the bars, the value axis and the first and last day.
    expect(dash.screen()).toContain('credits per day');
    expect(dash.screen()).toMatch(/┤.*█/);
    expect(dash.screen()).toMatch(/0 └─+/);
    expect(dash.screen()).toMatch(/ 01-30 +03-01\n/);
    expect(dash.line('paid/echo')).toMatch(/paid\/echo\s+3\s+12\s+[\d.]+/);
    expect(dash.line('local/echo')).toMatch(/local\/echo\s+2\s+0\s+0/);
    expect(dash.line('API keys')).toMatch(/API keys\s+5\s+[\d.]+/);
    expect(dash.screen()).not.toContain(user.slice(0, 12));
    dash.expectFits();
  });

  it('m switches to requests, g to hours, w through the windows', async () => {
    await makeUsage();
    const dash = open();
    await dash.shows('5 requests');
    dash.press('m');
    await dash.shows('requests per day');
    expect(dash.screen()).toContain('Usage of Default app, last 30 days');
    dash.press('g');
    await dash.shows('Usage of Default app, last 3 days');
    // 72 hours fit the columns: a bar an hour, from the hour the window starts in.
    await dash.shows('requests per hour');
    expect(dash.screen()).toMatch(/ 02-26 12h +03-01 12h\n/);
    dash.press('w');
    // 168 hours do not: two hours a bar.
    await dash.shows('Usage of Default app, last 7 days');
    await dash.shows('requests per 3 hours');
    dash.press('w');
    await dash.shows('Usage of Default app, last 24 hours');
    await dash.shows(': 2 requests');
    // Back to days (24 hours was the first hourly window: 7 days is the first daily one), then the next.
    dash.press('g', 'w');
    await dash.shows('Usage of Default app, last 30 days');
    await dash.shows('requests per day');
    dash.expectFits();
  });

  it('says when the window has no requests', async () => {
    const dash = open();
    await dash.shows('No requests to Default app in this window.');
    dash.expectFits();
  });

  it('shows each app its own models, whichever key the dashboard uses', async () => {
    await makeUsage();
    const other = await createApp(t, { name: 'Other app' });
    const key = await createKey(t, other.app_uuid);
    const chat = await t.call('POST', `${API}/chat/completions`, {
      key: key.secret,
      body: { model: 'local/echo', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
    });
    expectStatus(chat, 200);
    t.clock.advance(60_000);
    const dash = openDashboard({ api: serverApi(t), now: () => t.clock.now() });
    await dash.openApp('Other app');
    dash.press('4');
    await dash.shows('Usage of Other app');
    await dash.shows(/local\/echo\s+1\s+0/);
    expect(dash.screen()).not.toContain('paid/echo');
    dash.expectFits();
  });

  it('a failed load says why inside the screen; r loads again', async () => {
    const api = serverApi(t);
    let fail = true;
    const flaky = {
      ...api,
      usage: (...args: Parameters<typeof api.usage>) =>
        fail
          ? Promise.reject(new ApiRequestError(503, { error: { message: 'Usage is resting.', type: 'api_error', code: null, param: null } }, null))
          : api.usage(...args),
    };
    const dash = open(flaky);
    await dash.shows('Could not load usage: Usage is resting.');
    dash.expectFits();
    fail = false;
    dash.press('r');
    await dash.shows('No requests to Default app in this window.');
  });
});
