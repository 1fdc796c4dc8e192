import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { appPath, createApp, createKey, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../testing.js';

const t = useTestServer();
afterEach(() => cleanup());

/** The dashboard on the Keys screen of a fresh app `Keyring`. */
async function onKeyring() {
  const app = await createApp(t, { name: 'Keyring' });
  const dash = openDashboard({ api: serverApi(t) });
  await dash.openApp('Keyring');
  return { app, dash };
}

const keysOf = async (appUuid: string) => (await t.call('GET', appPath(appUuid, 'api-keys'))).body.data as { name: string; is_test: boolean }[];

describe('the Keys screen', () => {
  it('says when the app has no keys, and how to make one', async () => {
    const { dash } = await onKeyring();
    await dash.shows('Keyring has no keys. Press n to create one.');
    dash.expectFits();
  });

  it('lists the keys of the selected app: name, kind, prefix, last use', async () => {
    const { app, dash } = await onKeyring();
    await createKey(t, app.app_uuid, { name: 'ci', is_test: true });
    dash.press('r');
    await dash.shows('ci');
    expect(dash.line('ci')).toMatch(/ci\s+test\s+svc_test_\w{4}…\s+2026-03-01\s+never/);
  });

  it('creates a test key and shows its secret once, with the warning', async () => {
    const { app, dash } = await onKeyring();
    dash.press('n');
    await dash.shows('New key for Keyring');
    dash.press(KEY.ctrlU);
    dash.type('deploy');
    dash.press(KEY.enter, KEY.right, KEY.enter);
    await dash.shows('Key deploy (test) for Keyring');
    expect(dash.screen()).toContain('cannot be read again');
    const secret = dash.screen().match(/svc_test_[A-Za-z0-9]{40}/)?.[0];
    expect(secret).toBeDefined();
    dash.expectFits();
    // The secret works, and it is gone from the screen once dismissed.
    expect((await t.call('GET', '/api/v1/credits/balance', { key: secret })).status).toBe(200);
    dash.press(KEY.enter);
    await dash.hides('cannot be read again');
    await dash.shows('deploy');
    expect(dash.screen()).not.toContain(secret);
    expect(await keysOf(app.app_uuid)).toMatchObject([{ name: 'deploy', is_test: true }]);
  });

  it('deletes a key after a y/n question; n keeps it', async () => {
    const { app, dash } = await onKeyring();
    await createKey(t, app.app_uuid, { name: 'old' });
    dash.press('r');
    await dash.shows('old');
    dash.press('d');
    await dash.shows('Delete the key old');
    dash.press('n');
    await dash.hides('Delete the key old');
    expect(await keysOf(app.app_uuid)).toHaveLength(1);
    dash.press('d');
    await dash.shows('Delete the key old');
    dash.press('y');
    await dash.shows('Deleted the key old.');
    await dash.shows('Keyring has no keys.');
    expect(await keysOf(app.app_uuid)).toEqual([]);
  });

  it('an error while creating stays in the dialog; the screen goes on', async () => {
    const { dash } = await onKeyring();
    dash.press('n');
    await dash.shows('New key for Keyring');
    dash.press(KEY.ctrlU, KEY.enter, KEY.enter);
    await dash.shows(/✖ .*name/i);
    expect(dash.screen()).toContain('New key for Keyring');
    dash.press(KEY.esc);
    await dash.shows('Keyring has no keys.');
  });
});
