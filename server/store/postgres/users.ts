import type { Accounts } from './accounts.js';
import type { Sql, Tx } from './database.js';
import type { Ledger } from './ledger.js';
import { toUser, USER_COLUMNS, USER_FROM, type UserRow } from '../rows.js';
import type { AppUserRecord, Store } from '../types.js';

type HeldUserRow = UserRow & { held_micro: number };

/** Thrown inside a savepoint to undo it: another instance created the user first. */
class AlreadyCreated extends Error {}

export function createUsersRepository(sql: Sql, ledger: Ledger, accounts: Accounts): Store['users'] {
  const columns = sql.unsafe(`${USER_COLUMNS}, acc.held_micro`);
  const from = sql.unsafe(USER_FROM);

  const read = async (tx: Tx, appUuid: string, address: string): Promise<AppUserRecord> => {
    const [row] = await tx<HeldUserRow[]>`SELECT ${columns} FROM ${from} WHERE u.app_uuid = ${appUuid} AND u.address = ${address}`;
    if (!row) throw new Error(`no user ${address} in ${appUuid}`);
    return toUser(row, row.held_micro);
  };

  const selectApp = async (tx: Tx, appUuid: string) => {
    const [app] = await tx<{ account_id: number; app_type: string; default_user_credits_micro: number }[]>`
      SELECT account_id, app_type, default_user_credits_micro FROM apps WHERE app_uuid = ${appUuid}`;
    if (!app) throw new Error(`no app ${appUuid}`);
    return app;
  };

  const selectUserAccount = async (tx: Tx, appUuid: string, address: string) => {
    const [row] = await tx<{ account_id: number }[]>`SELECT account_id FROM app_users WHERE app_uuid = ${appUuid} AND address = ${address}`;
    return row?.account_id;
  };

  /**
   * Inserts the user with a new account; null when another instance inserted it first (its
   * insert commits before ours returns, and the savepoint takes back the account we opened).
   */
  const insertUser = async (tx: Tx, appUuid: string, address: string, creditLimit: number | null, at: string) => {
    try {
      return await tx.savepoint(async (sp) => {
        const accountId = await ledger.openAccount(sp);
        const inserted = await sp`
          INSERT INTO app_users (app_uuid, address, account_id, credit_limit_micro, created_at)
          VALUES (${appUuid}, ${address}, ${accountId}, ${creditLimit}, ${at})
          ON CONFLICT (app_uuid, address) DO NOTHING RETURNING account_id`;
        if (inserted.count === 0) throw new AlreadyCreated();
        return accountId;
      });
    } catch (error) {
      if (error instanceof AlreadyCreated) return null;
      throw error;
    }
  };

  /** Inside a transaction: the user's account id, creating the user (and its grant) when new. */
  const ensureUser = async (tx: Tx, appUuid: string, address: string, at: string, test = false): Promise<number> => {
    const existing = await selectUserAccount(tx, appUuid, address);
    if (existing !== undefined) return existing;
    const app = await selectApp(tx, appUuid);
    const pooled = app.app_type === 'pooled_api';
    const accountId = await insertUser(tx, appUuid, address, pooled ? app.default_user_credits_micro : null, at);
    if (accountId === null) {
      // Whoever created the user moved its default credits; nothing more to do here.
      const created = await selectUserAccount(tx, appUuid, address);
      if (created === undefined) throw new Error(`user ${address} in ${appUuid} vanished`);
      return created;
    }
    const grant = app.default_user_credits_micro;
    const key = `user-grant:${appUuid}:${address}`;
    if (test) {
      // Play money: the sandbox user sees its default credits, and the app's live balance stays.
      if (!pooled && grant > 0) {
        const testAccount = await accounts.of({ kind: 'user', appUuid, address, test }, tx);
        await ledger.post(tx, testAccount, { amountMicro: grant, kind: 'test_grant', idempotencyKey: key, at });
      }
      return accountId;
    }
    if (!pooled && grant > 0) {
      await ledger.post(tx, app.account_id, { amountMicro: -grant, kind: 'user_grant', idempotencyKey: key, reference: address, at });
      await ledger.post(tx, accountId, { amountMicro: grant, kind: 'user_grant', idempotencyKey: key, reference: appUuid, at });
    }
    return accountId;
  };

  return {
    async list(appUuid, page) {
      const rows = await sql<HeldUserRow[]>`
        SELECT ${columns} FROM ${from} WHERE u.app_uuid = ${appUuid}
        ORDER BY u.created_at COLLATE "C" DESC, u.address COLLATE "C" LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [count] = await sql<{ n: number }[]>`SELECT COUNT(*) AS n FROM app_users WHERE app_uuid = ${appUuid}`;
      return { items: rows.map((row) => toUser(row, row.held_micro)), total: count?.n ?? 0 };
    },

    async get(appUuid, address) {
      const [row] = await sql<HeldUserRow[]>`SELECT ${columns} FROM ${from} WHERE u.app_uuid = ${appUuid} AND u.address = ${address}`;
      return row ? toUser(row, row.held_micro) : null;
    },

    async ensure(appUuid, address, at, options = {}) {
      return sql.begin(async (tx) => {
        await ensureUser(tx, appUuid, address, at, options.test);
        return read(tx, appUuid, address);
      });
    },

    async topUp(appUuid, address, amountMicro, at) {
      return sql.begin(async (tx) => {
        const userAccount = await ensureUser(tx, appUuid, address, at);
        const app = await selectApp(tx, appUuid);
        // Each top-up is its own event: the key only ties its two entries together.
        const key = `top-up:${appUuid}:${address}:${crypto.randomUUID()}`;
        await ledger.post(tx, app.account_id, { amountMicro: -amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: address, at });
        await ledger.post(tx, userAccount, { amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: appUuid, at });
        return read(tx, appUuid, address);
      });
    },

    async setCreditLimit(appUuid, address, limitMicro, at) {
      return sql.begin(async (tx) => {
        await ensureUser(tx, appUuid, address, at);
        await tx`UPDATE app_users SET credit_limit_micro = ${limitMicro} WHERE app_uuid = ${appUuid} AND address = ${address}`;
        return read(tx, appUuid, address);
      });
    },
  };
}
