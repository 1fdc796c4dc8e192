import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../../test/helpers/api.js';
import { setBreaker } from '../../../../test/helpers/breakers.js';
import { pricedProvider } from '../../../../test/helpers/providers.js';
import { openDashboard, serverApi } from '../../../../test/helpers/dashboard.js';

/** The Providers screen against the real server, fed attempts as the routes report them. */
const t = useTestServer({ providers: [pricedProvider()] });
afterEach(() => cleanup());

const open = (key?: string) => openDashboard({ api: serverApi(t, key), screen: 'providers', now: () => t.clock.now() });
const attempt = (model: string, outcome: string, latencyMs: number) =>
  t.server.observer.attemptEnded({ route: 'smart', provider: 'paid', model, outcome, latencyMs, retry: false, fallback: false });

describe('the Providers screen', () => {
  it('says when no target has been tried yet', async () => {
    const dash = open();
    await dash.shows('No upstream target tried yet');
    dash.expectFits();
  });

  it("shows each target's breaker, requests, errors, error rate and p50, and follows them live; fits 80×24", async () => {
    attempt('echo', 'ok', 120);
    attempt('echo', 'server_error', 900);
    attempt('echo', 'ok', 180);
    attempt('embed', 'timeout', 2_400);
    await setBreaker(t, 'paid/embed', 'open');
    const dash = open();
    await dash.shows('Providers (2)');
    expect(dash.line('paid/echo')).toMatch(/paid\/echo\s+closed\s+3\s+1\s+33\.3%\s+180 ms\s+ok/);
    expect(dash.line('paid/embed')).toMatch(/paid\/embed\s+OPEN\s+1\s+1\s+100\.0%\s+2\.4 s\s+timeout/);
    expect(dash.screen()).toContain('1 breaker not closed');
    dash.expectFits();

    // No key pressed: the screen reads the targets again by itself.
    await setBreaker(t, 'paid/embed', 'half_open');
    attempt('embed', 'ok', 300);
    await dash.shows(/paid\/embed\s+half-open\s+2\s+1\s+50\.0%/);
    dash.expectFits();
  });

  it('r reloads at once; a key that is not admin is told so', async () => {
    const dash = open();
    await dash.shows('No upstream target tried yet');
    attempt('echo', 'ok', 50);
    dash.press('r');
    await dash.shows(/paid\/echo\s+closed\s+1\s+0\s+0\.0%\s+50 ms/);

    const reader = (await t.server.services.apiKeys.create(t.appUuid, { name: 'reader', role: 'read_only', is_test: false })).secret;
    const refused = open(reader);
    await refused.shows('Could not load providers');
    expect(refused.screen()).toMatch(/admin/);
  });
});
