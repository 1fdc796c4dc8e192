import { expect } from 'vitest';
import { addDeveloper, API, expectStatus } from './api.js';
import type { TestServer } from './server.js';

/** A line of `GET /developer/billing`. */
export interface BillingLine {
  kind: string;
  description: string;
  amount_usd: number;
  credits: number;
  status: string;
}

/** A new developer with an empty app, subscribing through the sandbox processor: one subscriber per test. */
export async function subscriber(t: TestServer) {
  const { key, appUuid, developerId } = await addDeveloper(t, `dev-${Math.random().toString(36).slice(2)}`);
  const call = (method: string, path: string, body?: unknown) => t.call(method, `${API}/subscriptions${path}`, { key, body });
  return {
    key,
    appUuid,
    developerId,
    call,
    status: async () => (await call('GET', '/status')).body,
    balance: async () => (await t.call('GET', `${API}/credits/balance`, { key })).body.credits as number,
    billing: async () => (await t.call('GET', `${API}/developer/billing`, { key })).body.data as BillingLine[],
    /** Checkout and pay in the sandbox: the subscription starts now. */
    async subscribe(tier: string, interval = 'month') {
      const session = await call('POST', '/checkout-session', { tier, interval, success_url: 'https://app.example/ok' });
      expectStatus(session, 201);
      const paid = await fetch(`${session.body.url}/pay`, { method: 'POST', redirect: 'manual' });
      expect(paid.status).toBe(303);
      return session.body;
    },
    /** Gives the subscription's customer a test card through the sandbox's customer portal (its form). */
    async useCard(card: string) {
      const portal = await call('POST', '/customer-portal', {});
      expectStatus(portal, 200);
      return fetch(`${portal.body.url}/card`, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
    },
  };
}

/** Moves the server's clock; the billing clock acts on its own, with no request coming in. */
export async function advance(t: TestServer, ms: number) {
  t.clock.advance(ms);
  await t.server.services.billingClock.idle();
}
