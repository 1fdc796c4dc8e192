import type { Db } from './database.js';
import { flag } from '../rows.js';
import type { Payer } from '../types.js';

interface OwnerRow {
  account_id: number;
  test_account_id: number | null;
}

/**
 * Which account a payer's money is in: an app's live account or its test account (play money of
 * test mode, opened on first use), a user's account (a user lives in one mode, with an account
 * of that mode), or the operator's promotions account. The answer never changes once the account
 * exists, so it is cached.
 */
export function createAccounts(db: Db) {
  const appRow = db.prepare<[string], OwnerRow>('SELECT account_id, test_account_id FROM apps WHERE app_uuid = ?');
  const userRow = db.prepare<[string, 0 | 1, string], { account_id: number }>(
    'SELECT account_id FROM app_users WHERE app_uuid = ? AND livemode = ? AND address = ?',
  );
  const operatorRow = db.prepare<[string], { account_id: number }>('SELECT account_id FROM operator_accounts WHERE name = ?');
  const openTest = db.prepare('INSERT INTO accounts (test) VALUES (1)');
  const setAppTest = db.prepare('UPDATE apps SET test_account_id = ? WHERE app_uuid = ? AND test_account_id IS NULL');
  const cache = new Map<string, number>();

  const keyOf = (payer: Payer) =>
    payer.kind === 'promotions'
      ? 'promotions'
      : `${payer.test ? 'test:' : ''}${payer.appUuid}${payer.kind === 'user' ? `/${payer.address}` : ''}`;

  const openAppTestAccount = db.transaction((appUuid: string): number => {
    const id = Number(openTest.run().lastInsertRowid);
    setAppTest.run(id, appUuid);
    return id;
  });

  function lookup(payer: Payer): number {
    if (payer.kind === 'promotions') {
      const row = operatorRow.get('promotions');
      if (!row) throw new Error('no promotions account (the database predates migration 12)');
      return row.account_id;
    }
    if (payer.kind === 'user') {
      const user = userRow.get(payer.appUuid, flag(!payer.test), payer.address);
      if (!user) throw new Error(`no account for ${JSON.stringify(payer)}`);
      return user.account_id;
    }
    const row = appRow.get(payer.appUuid);
    if (!row) throw new Error(`no account for ${JSON.stringify(payer)}`);
    if (!payer.test) return row.account_id;
    return row.test_account_id ?? openAppTestAccount(payer.appUuid);
  }

  return {
    /** The payer's account id (a test account is opened on first use). */
    of(payer: Payer): number {
      const key = keyOf(payer);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const id = lookup(payer);
      cache.set(key, id);
      return id;
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
