import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, useTestServer } from '../../../test/helpers/api.js';
import { accountLine } from './account.js';
import { KEY, openDashboard, serverApi } from '../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());

/** The header's second line: whose data, in which mode, on which server. */
const accountOf = (screen: string) => screen.split('\n')[1] ?? '';

describe('the header names the account each screen shows', () => {
  it('the developer on Apps and Billing, the selected app on Keys, the key’s own app on Credits and Subscription, live', async () => {
    await createApp(t, { name: 'Other shop' });
    const dash = openDashboard({ api: serverApi(t) });
    await dash.shows('Account: your developer account, every app · live');
    await dash.pick('Other shop');
    dash.press(KEY.enter);
    await dash.shows('API keys of Other shop');
    expect(accountOf(dash.screen())).toContain('App: Other shop · live');
    // Credits are the key's own app's, whichever app is selected (the issue: the header named the selected one).
    dash.press('5');
    await dash.shows('App: Default app (the key’s own) · live');
    expect(accountOf(dash.screen())).not.toContain('Other shop');
    dash.press('6');
    await dash.shows('Subscription ·');
    expect(accountOf(dash.screen())).toContain('App: Default app (the key’s own) · live');
    dash.press('7');
    await dash.shows('Billing (');
    expect(accountOf(dash.screen())).toContain('Account: your developer account, every app · live');
    dash.expectFits();
  });

  it('says test mode with a test key, which may not list the apps (an inference key): its app stays unnamed', async () => {
    const dash = openDashboard({ api: serverApi(t, t.testKey), screen: 'credits' });
    await dash.shows('Test balance');
    await dash.shows('App: the key’s own · test mode');
  });

  it('says only what it knows: no mode before the balance answers, "the key’s own" when the key’s app is not found', () => {
    const app = { app_uuid: 'a', name: 'Shop' };
    expect(accountLine('keys', app, null)).toBe('App: Shop');
    expect(accountLine('keys', null, null)).toBe('App: (none)');
    expect(accountLine('credits', app, { app: null, livemode: false })).toBe('App: the key’s own · test mode');
    expect(accountLine('credits', app, { app, livemode: true })).toBe('App: Shop (the key’s own) · live');
    expect(accountLine('billing', app, { app, livemode: true })).toBe('Account: your developer account, every app · live');
  });
});
