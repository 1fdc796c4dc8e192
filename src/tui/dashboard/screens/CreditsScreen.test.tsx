import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, expectStatus, fundPromotions, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());
// Developers' claims are paid from the operator's promotions account.
beforeEach(() => fundPromotions(t, 1000));

const open = (openUrl?: (url: string) => Promise<void>) => openDashboard({ api: serverApi(t), screen: 'credits', openUrl });
const balance = async () => (await t.call('GET', `${API}/credits/balance`)).body.credits as number;

describe('the Credits screen', () => {
  it('shows the balance, the tasks and the packs, in 80×24', async () => {
    const dash = open();
    await dash.shows('Balance 100 credits ($1.00)');
    expect(dash.line('Send your first chat message')).toMatch(/task\s+Send your first chat message\s+\+2\s+chat_requests ≥ 1/);
    expect(dash.line('500 credits')).toMatch(/pack\s+500 credits\s+500\s+\$5\.00\s+Enter buys/);
    dash.expectFits();
  });

  it('says where claims come from; with a test key, shows the test balance as play money', async () => {
    const live = open();
    await live.shows('Balance 100');
    expect(live.screen()).toContain('paid from the operator’s promotions account');
    live.expectFits();
    cleanup();
    const test = openDashboard({ api: serverApi(t, t.testKey), screen: 'credits' });
    await test.shows('Test balance 0 credits (play money');
    expect(test.screen()).not.toContain('promotions account');
    test.expectFits();
  });

    it('claims the daily credits once, and says when the next claim opens', async () => {
    const dash = open();
    await dash.shows('Balance 100');
    dash.press('c');
    await dash.shows(/Claimed \d+ daily credits; the balance is \d+\. Next claim from 2026-03-02 00:00\s+UTC\./);
    await dash.shows('Daily credits claimed; next claim from 2026-03-02 00:00 UTC.');
    expect(await balance()).toBeGreaterThan(100);
    // A second claim the same day: the server's refusal, inline, and the screen goes on.
    dash.press('c');
    await dash.shows(/✖ The daily credits for 2026-03-01 \(UTC\) are already claimed/);
    dash.expectFits();
    dash.press(KEY.down);
    await dash.shows(/^› task/m);
  });

  it('claims a task once its requirement is met; before that the refusal says why', async () => {
    const dash = open();
    await dash.shows('Send your first chat message');
    await dash.pick('Send your first chat message');
    dash.press(KEY.enter);
    await dash.shows(/✖ Task 'first_chat' needs chat_requests ≥ 1; you have 0\./);
    const chat = await t.call('POST', `${API}/chat/completions`, {
      body: { model: 'local/echo', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
    });
    expectStatus(chat, 200);
    dash.press(KEY.enter);
    await dash.shows('Claimed “Send your first chat message”: +2 credits; the balance is 102.');
    await dash.shows(/Send your first chat message\s+\+2\s+claimed/);
    dash.press(KEY.enter);
    await dash.shows('“Send your first chat message” is already claimed.');
  });

  it('a memory task asks how many memories there are', async () => {
    const dash = open();
    await dash.shows('Save your first memory');
    await dash.pick('Save your first memory');
    dash.press(KEY.enter);
    await dash.shows('Claim “Save your first memory”');
    expect(dash.screen()).toContain('Needs memories ≥ 1.');
    dash.type('3');
    dash.press(KEY.enter);
    await dash.shows('Claimed “Save your first memory”: +5 credits');
  });

  it('buys a pack: asks first, then prints the checkout address and opens it on request', async () => {
    const dash = open();
    await dash.shows('1,200 credits');
    await dash.pick('1,200 credits');
    dash.press(KEY.enter);
    await dash.shows('Buy 1,200 credits for $10.00?');
    dash.press('y');
    await dash.shows('Checkout for 1,200 credits');
    const url = dash.screen().match(/http:\/\/\S+/)?.[0];
    expect(url).toMatch(new RegExp(`^${t.url}/`));
    expect(dash.openUrl).not.toHaveBeenCalled();
    dash.expectFits();
    dash.press('o');
    await dash.shows('Opened in your browser.');
    expect(dash.openUrl).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`^${t.url}/`)));
    dash.press(KEY.esc);
    await dash.hides('Checkout for');
    await dash.shows('Balance 100');
  });

  it('the checkout dialog closes by itself once the pack is paid, and the balance shows it', async () => {
    const dash = open();
    await dash.shows('500 credits');
    await dash.pick('500 credits');
    dash.press(KEY.enter, 'y');
    await dash.shows('Checkout for 500 credits');
    const url = /(http:\/\/\S+\/sandbox\/checkout\/cs_[0-9a-f]+)/.exec(dash.screen())?.[1];
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await dash.beat(3_000);
    await dash.shows('✓ Payment received ($5.00)');
    await dash.hides('Checkout for 500 credits');
    await dash.shows('Balance 600 credits');
    expect(await balance()).toBe(600);
  });

  it('says so when no browser can be opened, and keeps the address on screen', async () => {
    const dash = open(() => Promise.reject(new Error('xdg-open: spawn xdg-open ENOENT')));
    await dash.shows('500 credits');
    await dash.pick('500 credits');
    dash.press(KEY.enter, 'y');
    await dash.shows('Checkout for 500 credits');
    dash.press(KEY.enter);
    await dash.shows('Could not open a browser (xdg-open: spawn xdg-open ENOENT)');
    expect(dash.screen()).toMatch(/http:\/\/\S+/);
  });

  it('a points sync the server refuses (an API key has no points) is said inline', async () => {
    const dash = open();
    await dash.shows('Balance 100');
    dash.press('s');
    await dash.shows(/✖ .*points/i);
    expect(dash.screen()).toContain('Balance 100');
    dash.expectFits();
  });
});
