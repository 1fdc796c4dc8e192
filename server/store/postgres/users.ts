import type { Accounts } from './accounts.js';
import type { Sql, Tx } from './database.js';
import type { Ledger } from './ledger.js';
import { toUser, USER_COLUMNS, USER_FROM, type UserRow } from '../rows.js';
import type { AppScope, AppUserRecord, Store } from '../types.js';

type HeldUserRow = UserRow & { held_micro: number };

/** Thrown inside a savepoint to undo it: another instance created the user first. */
class AlreadyCreated extends Error {}

/**
 * Users of an app, each in one mode with an account of that mode: a scope reads and writes only
 * its mode's users, so a sandbox user and a live user of the same address are two users.
 */
export function createUsersRepository(sql: Sql, ledger: Ledger, accounts: Accounts): Store['users'] {
  const columns = sql.unsafe(`${USER_COLUMNS}, acc.held_micro`);
  const from = sql.unsafe(USER_FROM);
  /** The user's key (migration 2): app, mode, address. */
  const userIs = (scope: AppScope, address: string, table = 'app_users') =>
    sql`${sql(table)}.app_uuid = ${scope.appUuid} AND ${sql(table)}.livemode = ${scope.livemode} AND ${sql(table)}.address = ${address}`;

  const read = async (tx: Tx, scope: AppScope, address: string): Promise<AppUserRecord> => {
    const [row] = await tx<HeldUserRow[]>`SELECT ${columns} FROM ${from} WHERE ${userIs(scope, address, 'u')}`;
    if (!row) throw new Error(`no user ${address} in ${scope.appUuid}`);
    return toUser(row, row.held_micro);
  };

  const selectApp = async (tx: Tx, appUuid: string) => {
    const [app] = await tx<{ app_type: string; default_user_credits_micro: number }[]>`
      SELECT app_type, default_user_credits_micro FROM apps WHERE app_uuid = ${appUuid}`;
    if (!app) throw new Error(`no app ${appUuid}`);
    return app;
  };

  const selectUserAccount = async (tx: Tx, scope: AppScope, address: string) => {
    const [row] = await tx<{ account_id: number }[]>`SELECT account_id FROM app_users WHERE ${userIs(scope, address)}`;
    return row?.account_id;
  };

  /**
   * Inserts the user with a new account of its mode; null when another instance inserted it first
   * (its insert commits before ours returns, and the savepoint takes back the account we opened).
   */
  const insertUser = async (tx: Tx, scope: AppScope, address: string, creditLimit: number | null, at: string) => {
    try {
      return await tx.savepoint(async (sp) => {
        const accountId = await ledger.openAccount(sp, !scope.livemode);
        const inserted = await sp`
          INSERT INTO app_users (app_uuid, livemode, address, account_id, credit_limit_micro, created_at)
          VALUES (${scope.appUuid}, ${scope.livemode}, ${address}, ${accountId}, ${creditLimit}, ${at})
          ON CONFLICT (app_uuid, livemode, address) DO NOTHING RETURNING account_id`;
        if (inserted.count === 0) throw new AlreadyCreated();
        return accountId;
      });
    } catch (error) {
      if (error instanceof AlreadyCreated) return null;
      throw error;
    }
  };

  /** Inside a transaction: the user's account id, creating the user (and its grant) when new. */
  const ensureUser = async (tx: Tx, scope: AppScope, address: string, at: string): Promise<number> => {
    const existing = await selectUserAccount(tx, scope, address);
    if (existing !== undefined) return existing;
    const { appUuid, livemode } = scope;
    const app = await selectApp(tx, appUuid);
    const pooled = app.app_type === 'pooled_api';
    const accountId = await insertUser(tx, scope, address, pooled ? app.default_user_credits_micro : null, at);
    if (accountId === null) {
      // Whoever created the user moved its default credits; nothing more to do here.
      const created = await selectUserAccount(tx, scope, address);
      if (created === undefined) throw new Error(`user ${address} in ${appUuid} vanished`);
      return created;
    }
    const grant = app.default_user_credits_micro;
    if (pooled || grant === 0) return accountId;
    const key = `user-grant:${appUuid}:${address}`;
    if (!livemode) {
      // Play money: the sandbox user sees its default credits, and the app's live balance stays.
      await ledger.post(tx, accountId, { amountMicro: grant, kind: 'test_grant', idempotencyKey: key, at });
      return accountId;
    }
    const appAccount = await accounts.of({ kind: 'app', appUuid }, tx);
    await ledger.post(tx, appAccount, { amountMicro: -grant, kind: 'user_grant', idempotencyKey: key, reference: address, at });
    await ledger.post(tx, accountId, { amountMicro: grant, kind: 'user_grant', idempotencyKey: key, reference: appUuid, at });
    return accountId;
  };

  return {
    async list(scope, page) {
      const rows = await sql<HeldUserRow[]>`
        SELECT ${columns} FROM ${from} WHERE u.app_uuid = ${scope.appUuid} AND u.livemode = ${scope.livemode}
        ORDER BY u.created_at COLLATE "C" DESC, u.address COLLATE "C" LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [count] = await sql<{ n: number }[]>`
        SELECT COUNT(*) AS n FROM app_users WHERE app_uuid = ${scope.appUuid} AND livemode = ${scope.livemode}`;
      return { items: rows.map((row) => toUser(row, row.held_micro)), total: count?.n ?? 0 };
    },

    async get(scope, address) {
      const [row] = await sql<HeldUserRow[]>`SELECT ${columns} FROM ${from} WHERE ${userIs(scope, address, 'u')}`;
      return row ? toUser(row, row.held_micro) : null;
    },

    async ensure(scope, address, at) {
      return sql.begin(async (tx) => {
        await ensureUser(tx, scope, address, at);
        return read(tx, scope, address);
      });
    },

    async topUp(scope, address, amountMicro, at) {
      return sql.begin(async (tx) => {
        const userAccount = await ensureUser(tx, scope, address, at);
        const { appUuid } = scope;
        const appAccount = await accounts.of({ kind: 'app', appUuid, test: !scope.livemode }, tx);
        // Each top-up is its own event: the key only ties its two entries together.
        const key = `top-up:${appUuid}:${address}:${crypto.randomUUID()}`;
        await ledger.post(tx, appAccount, { amountMicro: -amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: address, at });
        await ledger.post(tx, userAccount, { amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: appUuid, at });
        return read(tx, scope, address);
      });
    },

    async update(scope, address, patch, at) {
      return sql.begin(async (tx) => {
        await ensureUser(tx, scope, address, at);
        if (patch.creditLimitMicro !== undefined) {
          await tx`UPDATE app_users SET credit_limit_micro = ${patch.creditLimitMicro} WHERE ${userIs(scope, address)}`;
        }
        if (patch.budget !== undefined) {
          // A changed budget starts afresh, as a key's does: what was spent under the old one does not count.
          await tx`
            UPDATE app_users SET budget_credits_micro = ${patch.budget?.limitMicro ?? null}, budget_period = ${patch.budget?.period ?? null},
              budget_window_start = NULL, budget_spent_micro = 0
            WHERE ${userIs(scope, address)}`;
        }
        return read(tx, scope, address);
      });
    },
  };
}
