import type { Db } from './database.js';
import type { Accounts } from './accounts.js';
import type { Holds } from './holds.js';
import type { Ledger } from './ledger.js';
import { flag, toUser, USER_COLUMNS, USER_FROM, type UserRow } from '../rows.js';
import type { AppScope, AppUserRecord, Store } from '../types.js';

/** A user's key: app, mode, address (migration 14). */
type UserKey = [string, 0 | 1, string];

/**
 * Users of an app, each in one mode with an account of that mode: a scope reads and writes only
 * its mode's users, so a sandbox user and a live user of the same address are two users.
 */
export function createUsersRepository(db: Db, ledger: Ledger, holds: Holds, accounts: Accounts): Store['users'] {
  const selectOne = db.prepare<UserKey, UserRow>(
    `SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.app_uuid = ? AND u.livemode = ? AND u.address = ?`,
  );
  const selectPage = db.prepare<[string, 0 | 1, number, number], UserRow>(
    `SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.app_uuid = ? AND u.livemode = ?
     ORDER BY u.created_at DESC, u.address LIMIT ? OFFSET ?`,
  );
  const count = db.prepare<[string, 0 | 1], { n: number }>('SELECT COUNT(*) AS n FROM app_users WHERE app_uuid = ? AND livemode = ?');
  const selectApp = db.prepare<[string], { app_type: string; default_user_credits_micro: number }>(
    'SELECT app_type, default_user_credits_micro FROM apps WHERE app_uuid = ?',
  );
  const selectUserAccount = db.prepare<UserKey, { account_id: number }>(
    'SELECT account_id FROM app_users WHERE app_uuid = ? AND livemode = ? AND address = ?',
  );
  const insert = db.prepare(
    `INSERT INTO app_users (app_uuid, livemode, address, account_id, credit_limit_micro, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const updateLimit = db.prepare('UPDATE app_users SET credit_limit_micro = ? WHERE app_uuid = ? AND livemode = ? AND address = ?');
  // A changed budget starts afresh, as a key's does: what was spent under the old one does not count.
  const updateBudget = db.prepare(
    `UPDATE app_users SET budget_credits_micro = ?, budget_period = ?, budget_window_start = NULL, budget_spent_micro = 0
     WHERE app_uuid = ? AND livemode = ? AND address = ?`,
  );

  const keyOf = (scope: AppScope, address: string): UserKey => [scope.appUuid, flag(scope.livemode), address];

  const read = (scope: AppScope, address: string): AppUserRecord => {
    const row = selectOne.get(...keyOf(scope, address));
    if (!row) throw new Error(`no user ${address} in ${scope.appUuid}`);
    return toUser(row, holds.of(row.account_id));
  };

  /** Inside a transaction: the user's account id, creating the user (and its grant) when new. */
  const ensureUser = (scope: AppScope, address: string, at: string): number => {
    const existing = selectUserAccount.get(...keyOf(scope, address));
    if (existing) return existing.account_id;
    const { appUuid, livemode } = scope;
    const app = selectApp.get(appUuid);
    if (!app) throw new Error(`no app ${appUuid}`);
    const accountId = ledger.openAccount(!livemode);
    const pooled = app.app_type === 'pooled_api';
    insert.run(appUuid, flag(livemode), address, accountId, pooled ? app.default_user_credits_micro : null, at);
    const grant = app.default_user_credits_micro;
    if (pooled || grant === 0) return accountId;
    const key = `user-grant:${appUuid}:${address}`;
    if (!livemode) {
      // Play money: the sandbox user sees its default credits, and the app's live balance stays.
      ledger.post(accountId, { amountMicro: grant, kind: 'test_grant', idempotencyKey: key, at });
      return accountId;
    }
    ledger.post(accounts.of({ kind: 'app', appUuid }), { amountMicro: -grant, kind: 'user_grant', idempotencyKey: key, reference: address, at });
    ledger.post(accountId, { amountMicro: grant, kind: 'user_grant', idempotencyKey: key, reference: appUuid, at });
    return accountId;
  };

  return {
    async list(scope, page) {
      const mode = flag(scope.livemode);
      return {
        items: selectPage.all(scope.appUuid, mode, page.limit, page.offset).map((row) => toUser(row, holds.of(row.account_id))),
        total: count.get(scope.appUuid, mode)?.n ?? 0,
      };
    },

    async get(scope, address) {
      const row = selectOne.get(...keyOf(scope, address));
      return row ? toUser(row, holds.of(row.account_id)) : null;
    },

    async ensure(scope, address, at) {
      return db.transaction(() => {
        ensureUser(scope, address, at);
        return read(scope, address);
      })();
    },

    async topUp(scope, address, amountMicro, at) {
      return db.transaction(() => {
        const userAccount = ensureUser(scope, address, at);
        const { appUuid } = scope;
        // Each top-up is its own event: the key only ties its two entries together.
        const key = `top-up:${appUuid}:${address}:${crypto.randomUUID()}`;
        ledger.post(accounts.of({ kind: 'app', appUuid, test: !scope.livemode }), {
          amountMicro: -amountMicro,
          kind: 'user_top_up',
          idempotencyKey: key,
          reference: address,
          at,
        });
        ledger.post(userAccount, { amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: appUuid, at });
        return read(scope, address);
      })();
    },

    async update(scope, address, patch, at) {
      return db.transaction(() => {
        ensureUser(scope, address, at);
        if (patch.creditLimitMicro !== undefined) updateLimit.run(patch.creditLimitMicro, ...keyOf(scope, address));
        if (patch.budget !== undefined) updateBudget.run(patch.budget?.limitMicro ?? null, patch.budget?.period ?? null, ...keyOf(scope, address));
        return read(scope, address);
      })();
    },
  };
}
