import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { appPath, createApp, createKey, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());

/** The dashboard on the Keys screen of a fresh app `Keyring`. */
async function onKeyring() {
  const app = await createApp(t, { name: 'Keyring' });
  const dash = openDashboard({ api: serverApi(t) });
  await dash.openApp('Keyring');
  return { app, dash };
}

const keysOf = async (appUuid: string) => (await t.call('GET', appPath(appUuid, 'api-keys'))).body.data as { key_id: string; name: string; is_test: boolean; role: string }[];

describe('the Keys screen', () => {
  it('says when the app has no keys, and how to make one', async () => {
    const { dash } = await onKeyring();
    await dash.shows('Keyring has no keys. Press n to create one.');
    dash.expectFits();
  });

  it('lists the keys of the selected app: name, kind, prefix, budget, last use', async () => {
    const { app, dash } = await onKeyring();
    await createKey(t, app.app_uuid, { name: 'ci', is_test: true });
    dash.press('r');
    await dash.shows('ci');
    expect(dash.line('ci')).toMatch(/ci\s+test\s+inference\s+svc_test_\w{4}…\s+—\s+never/);
    await dash.shows('ci: no budget · never expires');
  });

  it('creates a test key and shows its secret once, with the warning', async () => {
    const { app, dash } = await onKeyring();
    dash.press('n');
    await dash.shows('New key for Keyring');
    dash.press(KEY.ctrlU);
    dash.type('deploy');
    dash.press(KEY.enter, KEY.right, KEY.enter, KEY.enter);
    await dash.shows('Key deploy (test, inference) for Keyring');
    expect(dash.screen()).toContain('cannot be read again');
    const secret = dash.screen().match(/svc_test_[A-Za-z0-9]{40}/)?.[0];
    expect(secret).toBeDefined();
    dash.expectFits();
    // The secret works, and it is gone from the screen once dismissed.
    expect((await t.call('GET', '/api/v1/credits/balance', { key: secret })).status).toBe(200);
    // y copies the secret and keeps the dialog open
    dash.press('y');
    await dash.shows('Copied the secret to the clipboard.');
    expect(dash.copy).toHaveBeenCalledWith(secret);
    expect(dash.screen()).toContain('cannot be read again');
    dash.press(KEY.enter);
    await dash.hides('cannot be read again');
    await dash.shows('deploy');
    expect(dash.screen()).not.toContain(secret);
    // on the list, y copies the selected key's id
    dash.press('y');
    await dash.shows(/Copied key_id \S+ to the clipboard\./);
    expect(dash.copy).toHaveBeenLastCalledWith((await keysOf(app.app_uuid))[0]?.key_id);
    expect(await keysOf(app.app_uuid)).toMatchObject([{ name: 'deploy', is_test: true, role: 'inference' }]);
  });

  it('creates a key of each role, and shows the role of every key', async () => {
    const { app, dash } = await onKeyring();
    for (const [steps, role] of [[0, 'inference'], [1, 'read_only'], [2, 'admin']] as const) {
      dash.press('n');
      await dash.shows('New key for Keyring');
      dash.press(KEY.ctrlU);
      dash.type(`k-${role}`);
      dash.press(KEY.enter, KEY.enter, ...Array<string>(steps).fill(KEY.right), KEY.enter);
      await dash.shows(`Key k-${role} (live, ${role}) for Keyring`);
      dash.press(KEY.enter);
      await dash.hides('cannot be read again');
      await dash.shows(`k-${role}`);
    }
    for (const role of ['inference', 'read_only', 'admin']) expect(dash.line(`k-${role}`)).toMatch(new RegExp(`k-${role}\\s+live\\s+${role}`));
    expect((await keysOf(app.app_uuid)).map((k) => k.role).sort()).toEqual(['admin', 'inference', 'read_only']);
  });

  it('refuses an admin test key in the dialog, with the server’s reason', async () => {
    const { dash } = await onKeyring();
    dash.press('n');
    await dash.shows('New key for Keyring');
    dash.press(KEY.enter, KEY.right, KEY.enter, KEY.right, KEY.right, KEY.enter);
    await dash.shows(/✖ .*test key cannot be admin/i);
  });

  it('warns before deleting the key the dashboard signs in with', async () => {
    const dash = openDashboard({ api: serverApi(t) });
    await dash.openApp('Default app');
    await dash.shows('owner test key');
    const own = (await keysOf(t.appUuid)).findIndex((k) => k.role === 'admin');
    const other = own === 0 ? 1 : 0;
    for (let i = 0; i < other; i++) dash.press(KEY.down);
    dash.press(KEY.ctrlD);
    await dash.shows('Delete the key');
    expect(dash.screen()).not.toContain('this dashboard signs in with');
    dash.press('n');
    await dash.hides('Delete the key');
    dash.press(other < own ? KEY.down : KEY.up);
    dash.press(KEY.ctrlD);
    await dash.shows('This is the key this dashboard signs in with');
    dash.press('n');
  });

  it('deletes a key after a y/n question; n keeps it', async () => {
    const { app, dash } = await onKeyring();
    await createKey(t, app.app_uuid, { name: 'old' });
    dash.press('r');
    await dash.shows('old');
    dash.press(KEY.ctrlD);
    await dash.shows('Delete the key old');
    dash.press('n');
    await dash.hides('Delete the key old');
    expect(await keysOf(app.app_uuid)).toHaveLength(1);
    dash.press(KEY.ctrlD);
    await dash.shows('Delete the key old');
    dash.press('y');
    await dash.shows('Deleted the key old.');
    await dash.shows('Keyring has no keys.');
    expect(await keysOf(app.app_uuid)).toEqual([]);
  });

  it('shows a key’s budget, spent, reset and expiry, and sets and removes them with b', async () => {
    const { app, dash } = await onKeyring();
    const key = await createKey(t, app.app_uuid, { name: 'ci', budget_credits: 20, budget_period: 'week', expires_at: '2026-06-30T00:00:00Z' });
    dash.press('r');
    await dash.shows(/ci\s+live\s+inference\s+svc_live_\w{4}…\s+0\/20 week\s+never/);
    await dash.shows('ci: 0 of 20 spent per week, resets 2026-03-02 00:00 UTC · expires 2026-06-30');
    dash.expectFits();

    dash.press('b');
    await dash.shows('Budget and expiry of ci');
    dash.press(KEY.ctrlU);
    dash.type('5');
    dash.press(KEY.enter, KEY.ctrlU);
    dash.type('fortnight');
    dash.press(KEY.enter, KEY.enter);
    await dash.shows(/✖ .*budget_period|✖ .*day, week, month/);
    dash.press(KEY.ctrlU);
    dash.type('12h');
    dash.press(KEY.enter, KEY.ctrlU);
    dash.type('2026-12-31T23:59:59Z');
    dash.press(KEY.enter);
    await dash.shows('ci: 0 of 5 spent per 12h, window starts at next spend · expires 2026-12-31.');
    const changed = (await keysOf(app.app_uuid)).find((k) => k.key_id === key.key_id);
    expect(changed).toMatchObject({ budget_credits: 5, budget_period: '12h', expires_at: '2026-12-31T23:59:59.000Z' });

    dash.press('b');
    await dash.shows('Budget and expiry of ci');
    dash.press(KEY.ctrlU, KEY.enter, KEY.enter, KEY.ctrlU, KEY.enter);
    await dash.shows('ci: no budget · never expires.');
    expect((await keysOf(app.app_uuid)).find((k) => k.key_id === key.key_id)).toMatchObject({ budget_credits: null, expires_at: null });
  });

  it('an error while creating stays in the dialog; the screen goes on', async () => {
    const { dash } = await onKeyring();
    dash.press('n');
    await dash.shows('New key for Keyring');
    dash.press(KEY.ctrlU, KEY.enter, KEY.enter, KEY.enter);
    await dash.shows(/✖ .*name/i);
    expect(dash.screen()).toContain('New key for Keyring');
    dash.press(KEY.esc);
    await dash.shows('Keyring has no keys.');
  });
});
