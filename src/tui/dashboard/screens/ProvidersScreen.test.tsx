import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../../test/helpers/api.js';
import { setBreaker } from '../../../../test/helpers/breakers.js';
import { pricedProvider } from '../../../../test/helpers/providers.js';
import { openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

/** The Providers screen against the real server: each served target and its breaker as the store has it. */
const t = useTestServer({ providers: [pricedProvider()] });
afterEach(() => cleanup());

const open = (key?: string) => openDashboard({ api: serverApi(t, key), screen: 'providers', now: () => t.clock.now() });

describe('the Providers screen', () => {
  it("shows each served target's breaker and follows it live, with no traffic figure; fits 80×24", async () => {
    await setBreaker(t, 'paid/embed', 'open');
    const dash = open();
    await dash.shows('Providers (4)');
    expect(dash.line('local/echo')).toMatch(/local\/echo\s+closed\s*$/);
    expect(dash.line('paid/echo')).toMatch(/paid\/echo\s+closed\s*$/);
    expect(dash.line('paid/embed')).toMatch(/paid\/embed\s+OPEN\s*$/);
    expect(dash.screen()).toContain('1 breaker not closed');
    expect(dash.screen()).toContain("operator's (GET /metrics)");
    dash.expectFits();

    // No key pressed: the screen reads the breakers again by itself.
    await setBreaker(t, 'paid/embed', 'half_open');
    await dash.shows(/paid\/embed\s+half-open/);
    dash.expectFits();
  });

  it('r reloads at once; a key that is not admin is told so', async () => {
    const dash = open();
    await dash.shows(/paid\/echo\s+closed/);
    await setBreaker(t, 'paid/echo', 'open');
    dash.press('r');
    await dash.shows(/paid\/echo\s+OPEN/);

    const reader = (await t.server.services.apiKeys.create(t.appUuid, { name: 'reader', role: 'read_only', is_test: false })).secret;
    const refused = open(reader);
    await refused.shows('Could not load providers');
    expect(refused.screen()).toMatch(/admin/);
  });
});
