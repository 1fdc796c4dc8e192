import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { API, useTestServer } from '../../../test/helpers/api.js';
import { describeLines, rowName } from './describe.js';
import { KEY, openDashboard, serverApi } from '../../../test/helpers/dashboard.js';

const t = useTestServer();
afterEach(() => cleanup());

describe('d describes the selected row', () => {
  it('shows the row’s JSON as the API gave it; Esc closes it', async () => {
    const app = (await t.call('GET', `${API}/developer/apps`)).body.data[0] as { app_uuid: string };
    const dash = openDashboard({ api: serverApi(t) });
    await dash.shows('Apps (1)');
    dash.press('d');
    await dash.shows('Describe Default app');
    expect(dash.screen()).toContain(`"app_uuid": "${app.app_uuid}",`);
    expect(dash.screen()).toContain('"balance_credits": 100,');
    dash.expectFits();
    dash.press(KEY.esc);
    await dash.hides('Describe');
    expect(dash.screen()).toContain('Apps (1)');
  });

  it('scrolls a row taller than the screen: ↓, End, Home; on any screen with rows (Keys here)', async () => {
    const dash = openDashboard({ api: serverApi(t), size: { columns: 60, rows: 16 } });
    await dash.shows('Apps (1)');
    dash.press(KEY.enter);
    await dash.shows('API keys of Default app');
    await dash.shows(/^› /m);
    dash.press('d');
    await dash.shows(/Describe \S+/);
    await dash.shows(/lines 1–\d+ of \d+ ↓/);
    expect(dash.screen()).toContain('"key_id": ');
    dash.press(KEY.down);
    await dash.shows(/lines 2–\d+ of \d+ ↑ ↓/);
    dash.press(KEY.end);
    await dash.shows(/lines \d+–(\d+) of \1 ↑\s/);
    expect(dash.screen()).toMatch(/│ }\s+│/);
    dash.press(KEY.home);
    await dash.shows(/lines 1–/);
    dash.expectFits();
  });

  it('says so on a screen without rows to describe', async () => {
    const dash = openDashboard({ api: serverApi(t), screen: 'usage', now: () => t.clock.now() });
    await dash.shows('Usage of');
    dash.press('d');
    await dash.shows('Nothing to describe here');
  });
});

describe('the JSON lines', () => {
  it('are cut to the width, a long value going on indented, and lose nothing', () => {
    const value = { id: 'x', url: `https://pay.example/${'a'.repeat(150)}`, nested: { list: [1, 2] } };
    const lines = describeLines(value, 40);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
    expect(lines.length).toBeGreaterThan(JSON.stringify(value, null, 2).split('\n').length);
    expect(lines.map((line) => line.trim()).join('')).toBe(JSON.stringify(value, null, 2).split('\n').map((line) => line.trim()).join(''));
  });

  it('name the row by its name, title, address or id', () => {
    expect(rowName({ name: 'Shop', id: 'x' })).toBe('Shop');
    expect(rowName({ address: '0xab' })).toBe('0xab');
    expect(rowName({ count: 1 })).toBe('the selected row');
  });
});
