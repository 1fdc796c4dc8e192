import type { Query, Sql } from './database.js';
import type { Payer } from '../types.js';

/**
 * Which account a payer's money is in: an app's live account or its test account (opened on first
 * use), a user's account (a user lives in one mode, with an account of that mode), or the
 * operator's promotions account. A committed answer never changes,
 * so answers read on the pool are cached; answers read inside a transaction are not, since the
 * transaction may yet roll back.
 */
export function createAccounts(pool: Sql) {
  const cache = new Map<string, number>();
  const keyOf = (payer: Payer) =>
    payer.kind === 'promotions'
      ? 'promotions'
      : `${payer.test ? 'test:' : ''}${payer.appUuid}${payer.kind === 'user' ? `/${payer.address}` : ''}`;

  /** Opens the app's test account unless one exists (the row lock makes two openers agree). */
  async function openAppTest(q: Query, appUuid: string): Promise<void> {
    await q`
      WITH target AS (SELECT app_uuid FROM apps WHERE app_uuid = ${appUuid} AND test_account_id IS NULL FOR UPDATE),
           opened AS (INSERT INTO accounts (test) SELECT true FROM target RETURNING id)
      UPDATE apps SET test_account_id = opened.id FROM opened WHERE apps.app_uuid = ${appUuid}`;
  }

  async function lookup(q: Query, payer: Payer): Promise<number> {
    if (payer.kind === 'promotions') {
      const [row] = await q<{ account_id: number }[]>`SELECT account_id FROM operator_accounts WHERE name = 'promotions'`;
      if (!row) throw new Error('no promotions account');
      return row.account_id;
    }
    if (payer.kind === 'user') {
      const [user] = await q<{ account_id: number }[]>`
        SELECT account_id FROM app_users WHERE app_uuid = ${payer.appUuid} AND livemode = ${!payer.test} AND address = ${payer.address}`;
      if (!user) throw new Error(`no account for ${JSON.stringify(payer)}`);
      return user.account_id;
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      const [row] = await q<{ account_id: number; test_account_id: number | null }[]>`
        SELECT account_id, test_account_id FROM apps WHERE app_uuid = ${payer.appUuid}`;
      if (!row) throw new Error(`no account for ${JSON.stringify(payer)}`);
      if (!payer.test) return row.account_id;
      if (row.test_account_id !== null) return row.test_account_id;
      await openAppTest(q, payer.appUuid);
    }
    throw new Error(`could not open a test account for ${JSON.stringify(payer)}`);
  }

  return {
    /** The payer's account id; `q` is the transaction to read in, else the pool (and cached). */
    async of(payer: Payer, q: Query = pool): Promise<number> {
      const key = keyOf(payer);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const id = await lookup(q, payer);
      if (q === pool) cache.set(key, id);
      return id;
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
