import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { API, appPath, expectApiError, expectStatus, fundPromotions, randomAddress, useTestServer } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer } from '../helpers/server.js';

const t = useTestServer({ providers: [pricedProvider()] });
const claimDaily = () => t.call('POST', `${API}/credits/claim-daily`);
const claimTask = (body: Record<string, unknown>) => t.call('POST', `${API}/credits/claim-task`, { body });
const balance = async () => (await t.call('GET', `${API}/credits/balance`)).body.credits;
// Developers' claims are paid from the operator's promotions account.
beforeEach(() => fundPromotions(t, 1000));

describe('credits claim-daily', () => {
  it('grants the daily credits once per UTC day, then says when the next claim opens', async () => {
    const first = await claimDaily();
    expectStatus(first, 200);
    expect(first.body).toEqual({ granted_credits: 10, credits: 110, next_claim_at: '2026-03-02T00:00:00.000Z' });
    const again = await claimDaily();
    expectApiError(again, 409, { code: 'already_claimed' });
    expect(again.body.error.message).toContain('2026-03-02T00:00:00.000Z');
    t.clock.set('2026-03-02T00:00:01.000Z');
    expect((await claimDaily()).body.credits).toBe(120);
  });

  it('50 concurrent claims: exactly one succeeds, and the balance moved once', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => claimDaily()));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(49);
    expect(await balance()).toBe(110);
    expect(await t.server.store.credits.check()).toEqual([]);
  });

  it('is per caller: another app’s key claims for its own app', async () => {
    expectStatus(await claimDaily(), 200);
    const other = await t.server.services.apps.create(t.server.bootstrap!.developerId, {
      name: 'second',
      app_type: 'standard',
      default_user_credits: 0,
      allowed_origins: [],
    });
    const key = (await t.server.services.apiKeys.create(other.appUuid, { name: 'k', is_test: false, role: 'admin' })).secret;
    expect((await t.call('POST', `${API}/credits/claim-daily`, { key })).body.credits).toBe(10);
  });
});

describe('credits claim-task and tasks list', () => {
  it('grants a task’s reward once its requirement is met, once', async () => {
    expectApiError(await claimTask({ task_type: 'save_first_memory' }), 400, { code: 'missing_field', param: 'memories' });
    expectApiError(await claimTask({ task_type: 'save_ten_memories', memories: 3 }), 400, { code: 'requirement_not_met' });
    const claimed = await claimTask({ task_type: 'save_first_memory', memories: 1 });
    expect(claimed.body).toMatchObject({ granted_credits: 5, credits: 105 });
    expectApiError(await claimTask({ task_type: 'save_first_memory', memories: 1 }), 409, { code: 'already_claimed' });
    const tasks = (await t.call('GET', `${API}/tasks`)).body.data;
    expect(tasks.find((task: { type: string }) => task.type === 'save_first_memory').claimed).toBe(true);
    expect(tasks.find((task: { type: string }) => task.type === 'save_ten_memories').claimed).toBe(false);
  });

  it('counts chat requests from the usage for chat tasks', async () => {
    expectApiError(await claimTask({ task_type: 'first_chat' }), 400, { code: 'requirement_not_met' });
    await t.call('POST', `${API}/chat/completions`, { body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] } });
    expectStatus(await claimTask({ task_type: 'first_chat' }), 200);
  });

  it('an unknown task is a 400 naming the field', async () => {
    expectApiError(await claimTask({ task_type: 'climb_everest' }), 400, { param: 'task_type' });
  });
});

describe('credits packs', () => {
  it('lists the packs with credits, price and price id', async () => {
    const packs = await t.call('GET', `${API}/credits/packs`);
    expect(packs.body.data[0]).toEqual({ id: 'pack_500', credits: 500, price_usd: 5, price_id: 'price_credits_500' });
  });
});

describe('the ledger consistency check', () => {
  it('finds no difference after mixed operations', async () => {
    await claimDaily();
    await claimTask({ task_type: 'save_first_memory', memories: 2 });
    await t.call('POST', appPath(t.appUuid, 'users', randomAddress(), 'top-up'), { body: { credits: 7 } });
    await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: 'pay' }] } });
    expect(await t.server.store.credits.check()).toEqual([]);
  });

  it('reports an account whose balance differs from its entries', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'svc-check-')), 'server.db');
    const server = await startTestServer({ dbPath });
    try {
      expect(await server.server.store.credits.check()).toEqual([]);
      const raw = new Database(dbPath);
      raw.prepare('UPDATE accounts SET balance_micro = balance_micro + 1').run();
      raw.close();
      const problems = await server.server.store.credits.check();
      expect(problems.length).toBeGreaterThan(0);
      expect(problems[0]!.balanceMicro - problems[0]!.ledgerMicro).toBe(1);
    } finally {
      await server.close();
    }
  });
});
