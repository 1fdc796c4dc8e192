import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { readServerEnvironment, ServerEnvironment } from '../../server/environment.js';
import { createPlanCatalog } from '../../server/payments/plans.js';
import { CLIENT_VARIABLES, clientEnvironment } from '../../src/client/environment.js';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The README's table of a schema's variables, as the schema describes them. */
function table(rows: [name: string, description: string | undefined][]): string {
  return ['| Variable | What it does |', '| --- | --- |', ...rows.map(([name, description]) => `| \`${name}\` | ${description ?? ''} |`)].join('\n');
}
const serverTable = () => table(Object.entries(ServerEnvironment.shape).map(([name, schema]) => [name, schema.description]));
const clientTable = () => table(Object.entries(CLIENT_VARIABLES));

describe("the server's environment, one schema", () => {
  it('takes an empty environment, with nothing set', () => {
    expect(Object.values(readServerEnvironment({})).filter((value) => value !== undefined)).toEqual([]);
  });

  it('reads every variable set but empty as unset, as most tools do (`VAR=` switches it off)', () => {
    const empty = Object.fromEntries(Object.keys(ServerEnvironment.shape).map((name) => [name, '']));
    expect(Object.values(readServerEnvironment(empty)).filter((value) => value !== undefined)).toEqual([]);
  });

  it('a server starts with every variable it reads set but empty', async () => {
    const empty = Object.fromEntries(Object.keys(ServerEnvironment.shape).map((name) => [name, '']));
    const server = await startServer({ dbPath: ':memory:', port: 0, log: () => {}, env: empty });
    try {
      expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('reads numbers, modes and case as the server uses them, and an empty value as unset', () => {
    const env = readServerEnvironment({ SVC_PG_POOL: '12', SVC_DB_SYNCHRONOUS: 'FULL', SVC_PAYMENTS: 'sandbox', SVC_AGENTS: '', SVC_POINTS_CREDITS_PER_POINT: '2.5' });
    expect(env).toMatchObject({ SVC_PG_POOL: 12, SVC_DB_SYNCHRONOUS: 'full', SVC_PAYMENTS: 'sandbox', SVC_POINTS_CREDITS_PER_POINT: 2.5 });
    expect(env.SVC_AGENTS).toBeUndefined();
  });

  it('refuses a bad value in one line that names the variable, what it must be and what it got', () => {
    expect(() => readServerEnvironment({ SVC_PG_POOL: '1' })).toThrow(/^SVC_PG_POOL must be a whole number from 2 to 1000 \(got "1"\)\.$/);
    expect(() => readServerEnvironment({ SVC_MAX_CONNECTIONS_PER_CLIENT: '1.5' })).toThrow(/^SVC_MAX_CONNECTIONS_PER_CLIENT must be a whole number from 1 \(got "1.5"\)\.$/);
    expect(() => readServerEnvironment({ SVC_PAYMENTS: 'free' })).toThrow(/^SVC_PAYMENTS must be one of stripe, sandbox, off \(got "free"\)\.$/);
    expect(() => readServerEnvironment({ SVC_DB_SYNCHRONOUS: 'sometimes' })).toThrow(/^SVC_DB_SYNCHRONOUS must be normal or full \(got "sometimes"\)\.$/);
    expect(() => readServerEnvironment({ SVC_POINTS_CREDITS_PER_POINT: '-1' })).toThrow(/^SVC_POINTS_CREDITS_PER_POINT must be a positive number/);
    // A product id where a price id belongs would otherwise fail only at a customer's checkout.
    expect(() => readServerEnvironment({ STRIPE_PRICE_PRO_MONTH: 'prod_Q1w2e3' })).toThrow(/^STRIPE_PRICE_PRO_MONTH must be a Stripe price id \(price_…\) \(got "prod_Q1w2e3"\)\.$/);
  });

  it("gives each plan the Stripe price its variable names, and the sandbox's own id to the others", () => {
    const plans = createPlanCatalog(readServerEnvironment({ STRIPE_PRICE_PRO_YEAR: 'price_1PzYearly' }));
    expect(plans.find('pro', 'year').priceId).toBe('price_1PzYearly');
    expect(plans.find('starter', 'month').priceId).toBe('price_svc_starter_month');
    // In the sandbox every plan is on sale; with Stripe's prices only those configured.
    expect(plans.onSale).toHaveLength(4);
    const atStripe = createPlanCatalog(readServerEnvironment({ STRIPE_PRICE_PRO_YEAR: 'price_1PzYearly' }), { realPrices: true });
    expect(atStripe.onSale.map((plan) => plan.priceId)).toEqual(['price_1PzYearly']);
    expect(atStripe.unpriced).toEqual(['STRIPE_PRICE_STARTER_MONTH', 'STRIPE_PRICE_STARTER_YEAR', 'STRIPE_PRICE_PRO_MONTH']);
    expect(Object.keys(ServerEnvironment.shape).filter((name) => name.startsWith('STRIPE_PRICE_')).sort()).toEqual(
      ['STRIPE_PRICE_PRO_MONTH', 'STRIPE_PRICE_PRO_YEAR', 'STRIPE_PRICE_STARTER_MONTH', 'STRIPE_PRICE_STARTER_YEAR'],
    );
  });

  it('refuses one Stripe price for two plans', () => {
    expect(() => readServerEnvironment({ STRIPE_PRICE_STARTER_MONTH: 'price_svc_pro_month' })).toThrow(
      /^STRIPE_PRICE_STARTER_MONTH must be a Stripe price id, not one of svc's own \(price_svc_…\) \(got "price_svc_pro_month"\)\.$/,
    );
    expect(() => readServerEnvironment({ STRIPE_PRICE_STARTER_MONTH: 'price_1Same', STRIPE_PRICE_PRO_MONTH: 'price_1Same' })).toThrow(
      /^STRIPE_PRICE_PRO_MONTH must be a price of its own, not STRIPE_PRICE_STARTER_MONTH's too \(got "price_1Same"\)\.$/,
    );
  });

  it('never repeats a secret in its error', () => {
    expect(() => readServerEnvironment({ SVC_METRICS_TOKEN: 'short-secret' })).toThrow(/^SVC_METRICS_TOKEN must be at least 16 characters\.$/);
    expect(() => readServerEnvironment({ SVC_PAYMENT_WEBHOOK_SECRET: 'short-secret' })).toThrow(/^SVC_PAYMENT_WEBHOOK_SECRET must be at least 16 characters\.$/);
  });
});

describe("the client's environment, one list", () => {
  it('reads set-but-empty as unset, NO_COLOR too (no-color.org: "present and not an empty string")', () => {
    expect(clientEnvironment({ SVC_API_KEY: '', SVC_HOME: '/tmp/h', NO_COLOR: '' })).toEqual({ SVC_API_KEY: undefined, SVC_HOME: '/tmp/h', NO_COLOR: undefined });
    const empty = Object.fromEntries(Object.keys(CLIENT_VARIABLES).map((name) => [name, '']));
    expect(Object.values(clientEnvironment(empty)).filter((value) => value !== undefined)).toEqual([]);
    expect(clientEnvironment({ NO_COLOR: '1' }).NO_COLOR).toBe('1');
  });
});

describe('the README', () => {
  it('lists every variable the server reads, as the schema describes it', () => {
    expect(README).toContain(serverTable());
  });

  it('lists every variable the CLI reads, as the list describes it', () => {
    expect(README).toContain(clientTable());
  });
});
