import { expect, it } from 'vitest';
import { describeEachBackend, STORE_TEST_AT } from '../helpers/stores.js';
import { useFundedApp } from './funded-app.js';

/** Last-use times: keys touched together are each written (PostgreSQL: one statement), only when stale. */
describeEachBackend('key touches', (backend) => {
  const app = useFundedApp(backend, 0);

  const newKey = (n: number) =>
    app.store.apiKeys.create({ keyId: `key_${n}`, appUuid: app.appUuid, name: `k${n}`, isTest: false, role: 'admin', prefix: `svc_live_${n}…`, secretHash: `h${n}`, at: STORE_TEST_AT });
  const lastUsed = async () => (await app.store.apiKeys.list(app.appUuid, { limit: 10, offset: 0 })).items.map((key) => [key.keyId, key.lastUsedAt]).sort();

  it('writes each key touched in one turn, and a fresh one again only once it is stale', async () => {
    await Promise.all([1, 2, 3].map(newKey));
    const at = '2026-11-25T10:05:00.000Z';
    await Promise.all([1, 2].map((n) => app.store.apiKeys.touch(`key_${n}`, at, '2026-11-25T10:04:00.000Z')));
    expect(await lastUsed()).toEqual([['key_1', at], ['key_2', at], ['key_3', null]]);
    const later = '2026-11-25T10:05:30.000Z';
    await Promise.all([1, 3].map((n) => app.store.apiKeys.touch(`key_${n}`, later, '2026-11-25T10:04:30.000Z')));
    expect(await lastUsed()).toEqual([['key_1', at], ['key_2', at], ['key_3', later]]);
  });
});
