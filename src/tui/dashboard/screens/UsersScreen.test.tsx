import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { appPath, createOwnerApp, randomAddress, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());

/** The Users screen of a new app of the owner, funded with `balanceCredits` (top-ups draw on it). */
async function onUsers(name = 'Crowd', fields: Parameters<typeof createOwnerApp>[1] = {}) {
  const app = await createOwnerApp(t, { name, balanceCredits: 1000, ...fields });
  const dash = openDashboard({ api: serverApi(t) });
  await dash.openApp(name);
  dash.press('3');
  await dash.shows(`Users of ${name}`);
  return { app, dash };
}

const topUp = (appUuid: string, address: string, credits: number) =>
  t.call('POST', appPath(appUuid, 'users', address, 'top-up'), { body: { credits } });

describe('the Users screen', () => {
  it('says when there are no users, and how one appears', async () => {
    const { dash } = await onUsers();
    await dash.shows('Crowd has no users yet.');
    dash.expectFits();
  });

  it('lists users with balance, limit and spend, the whole address within 80 columns', async () => {
    const { app, dash } = await onUsers('Listed');
    const address = randomAddress().toLowerCase();
    await topUp(app.appUuid, address, 12.5);
    dash.press('r');
    await dash.shows(address);
    expect(dash.line(address)).toMatch(new RegExp(`${address}\\s+12\\.5\\s+—\\s+0$`));
    expect(dash.screen()).toContain('Users of Listed (1)');
    dash.expectFits();
  });

  it('adds a user by topping up an address, tops up again, and sets and removes a limit', async () => {
    const { app, dash } = await onUsers('Pool', { app_type: 'pooled_api' });
    const address = randomAddress().toLowerCase();
    dash.press('n');
    await dash.shows('Add a user to Pool');
    dash.type(address);
    dash.press(KEY.enter);
    dash.type('10');
    dash.press(KEY.enter);
    await dash.shows(`${address} now has 10 credits.`);
    await dash.shows(new RegExp(`${address}\\s+10\\s+0\\s+0`));

    dash.press('t');
    await dash.shows(`Top up ${address}`);
    dash.type('2.25');
    dash.press(KEY.enter);
    await dash.shows(`${address} now has 12.25 credits.`);

    dash.press('l');
    await dash.shows(`Credit limit of ${address}`);
    dash.type('5');
    dash.press(KEY.enter);
    await dash.shows(`${address} may spend up to 5 credits.`);
    await dash.shows(new RegExp(`${address}\\s+12\\.25\\s+5\\s+0`));
    const user = (await t.call('GET', appPath(app.appUuid, 'users', address))).body;
    expect(user).toMatchObject({ credits: 12.25, credit_limit: 5 });

    dash.press('l');
    await dash.shows(`Credit limit of ${address}`);
    dash.press(KEY.ctrlU, KEY.enter);
    await dash.shows(`${address} has no limit now.`);
    expect((await t.call('GET', appPath(app.appUuid, 'users', address))).body.credit_limit).toBeNull();
  });

  it('shows the selected user’s budget, the app’s default or their own, and sets and clears their own with b', async () => {
    const { app, dash } = await onUsers('Budgeted');
    expect((await t.call('PATCH', appPath(app.appUuid), { body: { user_budget_credits: 20, user_budget_period: 'day' } })).status).toBe(200);
    const address = randomAddress().toLowerCase();
    await topUp(app.appUuid, address, 10);
    dash.press('r');
    await dash.shows('Budget: 0 of 20 spent per day, resets 2026-03-02 00:00 UTC (app default)');
    dash.expectFits();

    dash.press('b');
    await dash.shows(`Budget of ${address}`);
    dash.type('3');
    dash.press(KEY.enter, KEY.ctrlU);
    dash.type('week');
    dash.press(KEY.enter);
    await dash.shows('Budget: 0 of 3 spent per week, resets 2026-03-02 00:00 UTC (own).');
    expect((await t.call('GET', appPath(app.appUuid, 'users', address))).body).toMatchObject({ budget_credits: 3, budget_period: 'week', budget_source: 'user' });

    dash.press('b');
    await dash.shows(`Budget of ${address}`);
    dash.press(KEY.ctrlU, KEY.enter, KEY.enter);
    await dash.shows('Budget: 0 of 20 spent per day, resets 2026-03-02 00:00 UTC (app default).');
    expect((await t.call('GET', appPath(app.appUuid, 'users', address))).body).toMatchObject({ budget_credits: 20, budget_source: 'app' });
  });

  it('a top-up the app balance cannot cover is refused inside the dialog; Esc leaves it', async () => {
    const { dash } = await onUsers('Broke', { balanceCredits: 0 });
    dash.press('n');
    await dash.shows('Add a user to Broke');
    dash.type(randomAddress());
    dash.press(KEY.enter);
    dash.type('10');
    dash.press(KEY.enter);
    await dash.shows(/✖ The app balance \(0 credits\) cannot cover 10 credits/);
    dash.expectFits();
    dash.press(KEY.esc);
    await dash.shows('Broke has no users yet.');
  });

  it('a wrong address is refused inside the dialog, which stays open on that field', async () => {
    const { dash } = await onUsers();
    dash.press('n');
    await dash.shows('Add a user to Crowd');
    dash.type('0x123');
    dash.press(KEY.enter);
    dash.type('1');
    dash.press(KEY.enter);
    await dash.shows(/✖ .*wallet address/);
    expect(dash.line('Address')).toMatch(/› Address/);
    dash.press(KEY.esc);
    await dash.shows('Crowd has no users yet.');
  });

  it('scrolls a list longer than the screen, the cursor always in view', async () => {
    const app = await createOwnerApp(t, { name: 'Many', balanceCredits: 100 });
    const addresses = Array.from({ length: 30 }, () => randomAddress().toLowerCase());
    for (const address of addresses) await topUp(app.appUuid, address, 1);
    const dash = openDashboard({ api: serverApi(t) });
    await dash.openApp('Many');
    dash.press('3');
    await dash.shows('Users of Many (30)');
    await dash.shows(/rows 1–\d+ of 30 ↓/);
    dash.press(KEY.end);
    await dash.shows(/rows \d+–30 of 30 ↑$/m);
    expect(dash.screen()).toMatch(/^› 0x/m);
    dash.press(KEY.pageUp, KEY.pageUp, KEY.pageUp);
    await dash.shows(/rows 1–\d+ of 30 ↓/);
    dash.expectFits();
  });
});
