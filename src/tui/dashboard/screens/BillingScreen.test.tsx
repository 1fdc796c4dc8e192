import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { API, useTestServer } from '../../../../test/helpers/api.js';
import { KEY, openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

/** The Billing screen against the real server and its sandbox processor. */
const t = useTestServer();
afterEach(() => cleanup());

const open = () => openDashboard({ api: serverApi(t), screen: 'billing', now: () => t.clock.now() });

/** A paid pack purchase and an open (unpaid) app funding, through the sandbox checkout. */
async function charge(): Promise<void> {
  const pack = await t.call('POST', `${API}/credits/purchase`, { body: { credits: 500 } });
  expect(pack.status).toBe(201);
  await fetch(`${(pack.body as { url: string }).url}/pay`, { method: 'POST', redirect: 'manual' });
  const funding = await t.call('POST', `${API}/developer/apps/${t.appUuid}/fund`, { body: { credits: 200 } });
  expect(funding.status).toBe(201);
}

describe('the Billing screen', () => {
  it('says when nothing is billed yet', async () => {
    const dash = open();
    await dash.shows('Nothing billed yet');
    dash.expectFits();
  });

  it('lists every charge with its status and the total paid; / filters; y copies the id; fits 80×24', async () => {
    await charge();
    const dash = open();
    await dash.shows('Billing (2)');
    expect(dash.screen()).toMatch(/credit pack\s+.*\$5\.00\s+500\s+paid/);
    expect(dash.screen()).toMatch(/app funding\s+.*\$2\.00\s+200\s+pending/);
    expect(dash.screen()).toContain('$5.00 paid');
    dash.expectFits();

    dash.press('/');
    dash.type('funding');
    dash.press(KEY.enter);
    await dash.hides('credit pack');
    expect(dash.screen()).toContain('$0.00 paid in the rows shown');
    dash.press('y');
    await dash.shows(/Copied id \S+ to the clipboard\./);
    const records = (await t.call('GET', `${API}/developer/billing`)).body.data as { id: string; kind: string }[];
    expect(dash.copy).toHaveBeenCalledWith(records.find((record) => record.kind === 'app_funding')?.id);
  });
});
