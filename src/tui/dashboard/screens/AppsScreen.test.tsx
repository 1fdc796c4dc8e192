import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API, createApp, createOwnerApp, getApp, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());

const open = () => openDashboard({ api: serverApi(t) });

describe('the Apps screen', () => {
  it('lists the apps with their balance, and fits 80×24', async () => {
    await createApp(t, { name: 'Second app', default_user_credits: 5, allowed_origins: ['https://a.example'] });
    const dash = open();
    // The header names the selected app too: wait for the table's row itself.
    await dash.shows(/Second app\s+standard\s+0\s+5\s+1\s+2026-03-01/);
    expect(dash.screen()).toContain('Apps (2)');
    expect(dash.screen()).toContain('1 Apps');
    expect(dash.screen()).toContain('n new app');
    dash.expectFits();
  });

  it('/ filters the rows by every word typed (Enter keeps the filter, Esc clears it, the cursor acts on what is shown); y copies the id', async () => {
    await createApp(t, { name: 'Shop east' });
    await createApp(t, { name: 'Shop west' });
    const blog = await createApp(t, { name: 'Blog' });
    const dash = open();
    await dash.shows('Apps (4)');
    // the header names the selected app: look at the table's rows
    const rowGone = (name: string) => vi.waitFor(() => expect(dash.screen()).not.toMatch(new RegExp(`${name}\\s+standard`)), { timeout: 15_000 });
    dash.press('/');
    dash.type('shop');
    await rowGone('Blog');
    expect(dash.screen()).toMatch(/Shop east\s+standard/);
    expect(dash.screen()).toContain('/shop');
    dash.type(' wes');
    await rowGone('Shop east');
    dash.press(KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace);
    await dash.shows(/Shop east\s+standard/);
    dash.type(' w');
    await rowGone('Shop east');
    dash.press(KEY.enter);
    await dash.shows('filter /shop w (Esc clears)');
    // Enter opens the only row shown: its keys, on the Keys screen
    dash.press(KEY.enter);
    await dash.shows('API keys of Shop west');
    dash.press(KEY.esc);
    await dash.shows('filter /shop w (Esc clears)');
    // in the header, where it stays while the filter applies
    expect(dash.screen().split('\n')[1]).toContain('filter /shop w');
    dash.press(KEY.esc);
    await dash.shows(/Blog\s+standard/);
    await dash.hides('filter /shop');
    dash.press('/');
    dash.type('nothing like it');
    await dash.shows('No apps match /nothing like it');
    dash.press(KEY.esc);
    await dash.shows(/Blog\s+standard/);
    dash.expectFits();
    // y copies the selected app's id
    await dash.pick('Blog');
    dash.press('y');
    await dash.shows(`Copied app_uuid ${blog.app_uuid} to the clipboard.`);
    expect(dash.copy).toHaveBeenCalledWith(blog.app_uuid);
  });

  it('o sorts by name, then balance, …; O reverses; the footer says how', async () => {
    await createApp(t, { name: 'Zed' });
    await createApp(t, { name: 'alpha' });
    const all = ((await t.call('GET', `${API}/developer/apps`)).body.data as { name: string }[]).map((app) => app.name);
    const byName = (a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase());
    const dash = open();
    await dash.shows('Apps (3)');
    const names = () =>
      dash
        .screen()
        .split('\n')
        .map((line) => /^[› ] (?:● )?(.+?)\s{2,}(?:standard|pooled)/.exec(line)?.[1])
        .filter(Boolean);
    dash.press('o');
    await dash.shows('sorted by name ▲');
    expect(names()).toEqual([...all].sort(byName));
    dash.press('O');
    await dash.shows('sorted by name ▼');
    expect(names()).toEqual([...all].sort(byName).reverse());
    dash.press('o', 'o', 'o', 'o');
    await dash.hides('sorted by');
  });

  it('funds an app through a checkout; the dialog closes by itself once the payment lands, and the list shows it', async () => {
    const shop = await createApp(t, { name: 'Funded shop' });
    const api = serverApi(t);
    const read = api.billing.bind(api);
    let looks = 0;
    api.billing = async () => {
      const page = await read();
      looks++;
      return page;
    };
    const dash = openDashboard({ api });
    await dash.shows(/Funded shop\s+standard\s+0/);
    await dash.pick('Funded shop');
    dash.press('f');
    await dash.shows('Fund Funded shop');
    dash.press(KEY.ctrlU);
    dash.type('250');
    dash.press(KEY.enter);
    await dash.shows('Checkout for 250 credits to Funded shop');
    expect(dash.screen()).toContain('This closes by itself when the payment lands.');
    const url = /(http:\/\/\S+\/sandbox\/checkout\/cs_[0-9a-f]+)/.exec(dash.screen())?.[1];
    expect(url).toBeDefined();
    // Unpaid, the watch finds the session pending: the dialog stays.
    await dash.beat(3_000);
    await vi.waitFor(() => expect(looks).toBe(1), { timeout: 15_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(dash.screen()).toContain('Checkout for 250 credits');
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await dash.beat(3_000);
    await dash.hides('Checkout for 250 credits');
    await dash.shows('✓ Payment received ($2.50): 250 credits for app');
    await dash.shows(/Funded shop\s+standard\s+250/);
    expect((await getApp(t, shop.app_uuid)).balance_credits).toBe(250);
  });

  it('a cancelled checkout closes its dialog and says so', async () => {
    await createApp(t, { name: 'Shy shop' });
    const dash = open();
    await dash.pick('Shy shop');
    dash.press('f', KEY.enter);
    await dash.shows('Checkout for 1,000 credits to Shy shop');
    const url = /(http:\/\/\S+\/sandbox\/checkout\/cs_[0-9a-f]+)/.exec(dash.screen())?.[1];
    await fetch(`${url}/cancel`, { method: 'POST', redirect: 'manual' });
    await dash.beat(3_000);
    await dash.shows('✖ Checkout cancelled, nothing was charged: 1000 credits for app');
    expect(dash.screen()).not.toContain('Checkout for 1,000 credits');
  });

  it('creates an app from the form; a value the server refuses is shown in the form, which stays open', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press('n');
    await dash.shows('New app');
    dash.type('Shop');
    dash.press(KEY.enter, KEY.right, KEY.enter, KEY.ctrlU);
    dash.type('lots');
    dash.press(KEY.enter, KEY.enter);
    // Refused before sending: the cursor goes back to the field.
    await dash.shows('User credits must be a number.');
    expect(dash.line('User credits')).toMatch(/› User credits/);
    dash.press(KEY.ctrlU);
    dash.type('2.5');
    dash.press(KEY.enter);
    dash.type('not-an-origin');
    dash.press(KEY.enter);
    // Refused by the server: its 400 names the field, and the dialog stays open on it.
    await dash.shows(/✖ .*origin/);
    expect(dash.screen()).toContain('New app');
    expect(dash.line('Origins')).toMatch(/› Origins/);
    dash.press(KEY.ctrlU);
    dash.type('https://shop.example, http://localhost:3000');
    dash.press(KEY.enter);
    await dash.shows('Created Shop.');
    expect(dash.line('Shop')).toMatch(/Shop\s+pooled\s+0\s+2\.5\s+2/);
    dash.expectFits();
  });

  it('edits an app: name, user credits and origins', async () => {
    const created = await createApp(t, { name: 'Old name', allowed_origins: ['https://old.example'] });
    const dash = open();
    await dash.shows('Old name');
    await dash.pick('Old name');
    dash.press('e');
    await dash.shows('Edit Old name');
    dash.press(KEY.ctrlU);
    dash.type('New name');
    dash.press(KEY.enter, KEY.ctrlU);
    dash.type('7');
    dash.press(KEY.enter, KEY.ctrlU, KEY.enter);
    await dash.shows('Saved New name.');
    const app = await getApp(t, created.app_uuid);
    expect(app).toMatchObject({ name: 'New name', default_user_credits: 7, allowed_origins: [] });
  });

  it('deletes an app only when its name is typed', async () => {
    const created = await createApp(t, { name: 'Doomed' });
    const dash = open();
    await dash.shows('Doomed');
    await dash.pick('Doomed');
    dash.press(KEY.ctrlD);
    await dash.shows('Delete the app Doomed?');
    dash.type('Doome');
    dash.press(KEY.enter);
    await dash.shows('Type Doomed exactly to confirm');
    expect((await t.call('GET', `/api/v1/developer/apps/${created.app_uuid}`)).status).toBe(200);
    dash.type('d');
    dash.press(KEY.enter);
    await dash.shows('Deleted Doomed.');
    expect(dash.screen()).toContain('Apps (1)');
    expect((await t.call('GET', `/api/v1/developer/apps/${created.app_uuid}`)).status).toBe(404);
  });

  it('deleting an app that holds credits says where they go, and moves them there', async () => {
    t.clock.advance(1_000);
    await createOwnerApp(t, { name: 'Rich', balanceCredits: 25 });
    const before = (await getApp(t, t.appUuid)).balance_credits;
    const dash = open();
    await dash.shows(/Rich\s+standard/);
    await dash.pick('Rich');
    dash.press(KEY.ctrlD);
    await dash.shows('Its 25 credits, and its test credits, move to Default app,');
    dash.type('Rich');
    dash.press(KEY.enter);
    await dash.shows('Deleted Rich.');
    expect((await getApp(t, t.appUuid)).balance_credits).toBe(before + 25);
  });

  it('deleting the last app says its credits go back to the operator', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press(KEY.ctrlD);
    await dash.shows('It is your last app: its 100 credits go back to the operator,');
    dash.press(KEY.esc);
    await dash.hides('It is your last app');
  });

  it('Esc leaves a dialog without changing anything', async () => {
    const dash = open();
    await dash.shows('Apps (1)');
    dash.press(KEY.ctrlD);
    await dash.shows('Delete the app');
    dash.press(KEY.esc);
    await dash.hides('Delete the app');
    expect(dash.screen()).toContain('Apps (1)');
    expect(dash.exit).not.toHaveBeenCalled();
  });

  it('Enter picks an app and opens its keys', async () => {
    await createApp(t, { name: 'Picked' });
    const dash = open();
    await dash.shows('Picked');
    await dash.openApp('Picked');
    expect(dash.screen()).toContain('App: Picked');
  });

  it('an app list that cannot load says why, and r tries again', async () => {
    const dash = openDashboard({ api: serverApi(t, 'svc_live_' + 'A'.repeat(40)) });
    await dash.shows(/Could not load apps: [\s\S]*svc auth login/);
    expect(dash.screen()).toContain('r tries again');
    dash.press('r');
    await dash.shows('Could not load apps');
    dash.expectFits();
  });
});
