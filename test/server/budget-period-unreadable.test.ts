import { describe, expect, it } from 'vitest';
import { budgetChange } from '../../server/services/budgets.js';
import { API, createKey, createOwnerApp, expectApiError, expectStatus, ownerId, useTestServer } from '../helpers/api.js';
import { liveUsersApp, userChat } from '../helpers/live-users.js';
import { pricedProvider } from '../helpers/providers.js';

/**
 * A budget whose stored period is not one (an older server's, a hand edit of the database) fails
 * closed: the request is refused with a 402 that names the budget and the bad value, never served
 * as if there were no budget. And no path through the services stores such a period.
 */
const t = useTestServer({ providers: [pricedProvider()] });
const BAD = 'fortnight';

const chat = (key: string) =>
  t.call('POST', `${API}/chat/completions`, { key, body: { model: 'paid/echo', max_tokens: 10, messages: [{ role: 'user', content: 'pay' }] } });

describe('a stored budget period that does not parse', () => {
  it("a key's: its requests are refused, naming the calling key's budget and the value; fixed, they pass", async () => {
    const app = await createOwnerApp(t, { balanceCredits: 1000 });
    const key = await createKey(t, app.appUuid, { name: 'ci', role: 'inference', budget_credits: 50, budget_period: 'day' });
    expectStatus(await chat(key.secret), 200);
    await t.server.store.apiKeys.update(app.appUuid, key.key_id, { budget: { limitMicro: 50_000_000, period: BAD } });

    const refused = await chat(key.secret);
    expectApiError(refused, 402, { code: 'budget_exceeded' });
    expect(refused.body.error.message).toContain('The budget of the key this request was made with');
    expect(refused.body.error.message).toContain(`"${BAD}"`);
    expect(refused.headers.get('retry-after')).toBeNull();

    await t.server.store.apiKeys.update(app.appUuid, key.key_id, { budget: { limitMicro: 50_000_000, period: 'week' } });
    expectStatus(await chat(key.secret), 200);
  });

  it("a user's own, and their app's default for its users: refused, naming which and the value", async () => {
    const app = await liveUsersApp(t, { default_user_credits: 100 });
    const user = await app.user();
    expectStatus(await userChat(t, user.token), 200);

    const scope = { appUuid: app.appUuid, livemode: true };
    await t.server.store.users.update(scope, user.address, { budget: { limitMicro: 50_000_000, period: BAD } }, t.clock.now().toISOString());
    const own = await userChat(t, user.token);
    expectApiError(own, 402, { code: 'budget_exceeded' });
    expect(own.body.error.message).toContain(`user ${user.address}`);
    expect(own.body.error.message).toContain(`"${BAD}"`);

    await t.server.store.users.update(scope, user.address, { budget: null }, t.clock.now().toISOString());
    await t.server.store.apps.update(ownerId(t), app.appUuid, { userBudget: { limitMicro: 50_000_000, period: '2w' } }, t.clock.now().toISOString());
    const byDefault = await userChat(t, user.token);
    expectApiError(byDefault, 402, { code: 'budget_exceeded' });
    expect(byDefault.body.error.message).toContain(`app ${app.appUuid}`);
    expect(byDefault.body.error.message).toContain('"2w"');
  });

  it('is never stored through the services: a budget change with one is a 400 naming the field and the value', () => {
    const fields = { credits: 'budget_credits', period: 'budget_period' };
    expect(() => budgetChange({ credits: 5, period: BAD }, null, fields)).toThrow('budget_period "fortnight" is not a period');
    expect(() => budgetChange({ period: '0d' }, { limitMicro: 1, period: 'day' }, fields)).toThrow('budget_period "0d"');
    expect(budgetChange({ credits: 5, period: '12h' }, null, fields)).toEqual({ limitMicro: 5_000_000, period: '12h' });
    expect(budgetChange({ credits: 5 }, null, fields)).toEqual({ limitMicro: 5_000_000, period: 'month' });
  });
});
