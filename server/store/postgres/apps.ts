import type { Accounts } from './accounts.js';
import type { Query, Sql } from './database.js';
import type { KeyCache } from './key-cache.js';
import type { Ledger } from './ledger.js';
import { balanceMoveEntries } from '../app-deletion.js';
import { APP_COLUMNS, APP_FROM, toApp, type AppRow } from '../rows.js';
import type { AppDeletion, AppRecord, Store } from '../types.js';

type HeldAppRow = AppRow & { held_micro: number };

const isUniqueViolation = (error: unknown, constraint: string) =>
  (error as { code?: string }).code === '23505' && (error as { constraint_name?: string }).constraint_name === constraint;

/**
 * Apps. Writes that can change what an API key resolves to clear the key cache once committed,
 * so this instance never serves the old answer after the write returns.
 */
export function createAppsRepository(sql: Sql, ledger: Ledger, accounts: Accounts, keyCache: KeyCache): Store['apps'] {
  const columns = sql.unsafe(`${APP_COLUMNS}, acc.held_micro`);
  const from = sql.unsafe(APP_FROM);

  const byId = async (q: Query, appUuid: string): Promise<AppRecord> => {
    const [row] = await q<HeldAppRow[]>`SELECT ${columns} FROM ${from} WHERE a.app_uuid = ${appUuid} AND a.deleted_at IS NULL`;
    if (!row) throw new Error(`no app ${appUuid}`);
    return toApp(row, row.held_micro);
  };

  /** Runs a write, then clears the key cache whatever happened (a clear too many costs one read). */
  async function changing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      keyCache.clear();
    }
  }

  return {
    async create(app, grant) {
      return sql.begin(async (tx) => {
        const accountId = await ledger.openAccount(tx);
        await tx`
          INSERT INTO apps (app_uuid, developer_id, account_id, name, app_type, default_user_credits_micro, allowed_origins,
            rate_limit_rpm, rate_limit_tpm, user_claims, user_budget_credits_micro, user_budget_period, created_at, updated_at)
          VALUES (${app.appUuid}, ${app.developerId}, ${accountId}, ${app.name}, ${app.appType}, ${app.defaultUserCreditsMicro},
            ${JSON.stringify(app.allowedOrigins)}, ${app.rateLimitRpm ?? null}, ${app.rateLimitTpm ?? null},
            ${app.userClaims !== false}, ${app.userBudget?.limitMicro ?? null}, ${app.userBudget?.period ?? null}, ${app.at}, ${app.at})`;
        if (grant) await ledger.post(tx, accountId, grant);
        return byId(tx, app.appUuid);
      });
    },

    async list(developerId, page) {
      const rows = await sql<HeldAppRow[]>`
        SELECT ${columns} FROM ${from} WHERE a.developer_id = ${developerId} AND a.deleted_at IS NULL
        ORDER BY a.created_at COLLATE "C" DESC, a.app_uuid COLLATE "C" LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [count] = await sql<{ n: number }[]>`
        SELECT COUNT(*) AS n FROM apps WHERE developer_id = ${developerId} AND deleted_at IS NULL`;
      return { items: rows.map((row) => toApp(row, row.held_micro)), total: count?.n ?? 0 };
    },

    async get(developerId, appUuid) {
      const [row] = await sql<HeldAppRow[]>`
        SELECT ${columns} FROM ${from} WHERE a.app_uuid = ${appUuid} AND a.developer_id = ${developerId} AND a.deleted_at IS NULL`;
      return row ? toApp(row, row.held_micro) : null;
    },

    async byId(appUuid) {
      const [row] = await sql<HeldAppRow[]>`SELECT ${columns} FROM ${from} WHERE a.app_uuid = ${appUuid} AND a.deleted_at IS NULL`;
      return row ? toApp(row, row.held_micro) : null;
    },

    async update(developerId, appUuid, patch, at) {
      const changes: Record<string, string | number | boolean | null> = { updated_at: at };
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.defaultUserCreditsMicro !== undefined) changes.default_user_credits_micro = patch.defaultUserCreditsMicro;
      if (patch.allowedOrigins !== undefined) changes.allowed_origins = JSON.stringify(patch.allowedOrigins);
      if (patch.rateLimitRpm !== undefined) changes.rate_limit_rpm = patch.rateLimitRpm;
      if (patch.rateLimitTpm !== undefined) changes.rate_limit_tpm = patch.rateLimitTpm;
      if (patch.userClaims !== undefined) changes.user_claims = patch.userClaims;
      if (patch.userBudget !== undefined) {
        changes.user_budget_credits_micro = patch.userBudget?.limitMicro ?? null;
        changes.user_budget_period = patch.userBudget?.period ?? null;
      }
      return changing(() =>
        sql.begin(async (tx) => {
          // One statement checks and writes: a delete by another instance either precedes it or waits for it.
          const result = await tx`
            UPDATE apps SET ${tx(changes)}
            WHERE app_uuid = ${appUuid} AND developer_id = ${developerId} AND deleted_at IS NULL`;
          if (result.count === 0) return null;
          // A changed default starts a fresh window for the users it applies to (those without
          // their own), as a changed key budget does.
          if (patch.userBudget !== undefined) {
            await tx`UPDATE app_users SET budget_window_start = NULL, budget_spent_micro = 0
                     WHERE app_uuid = ${appUuid} AND budget_credits_micro IS NULL`;
          }
          return byId(tx, appUuid);
        }),
      );
    },

    async delete(developerId, appUuid, at, moveTo) {
      const target = moveTo && 'appUuid' in moveTo ? moveTo.appUuid : null;
      return changing(() =>
        sql.begin(async (tx): Promise<AppDeletion> => {
          // Both apps locked, in one order, so two deletions moving credits to each other cannot deadlock.
          const uuids = [...new Set([appUuid, target ?? appUuid])].sort();
          const apps = await tx<{ app_uuid: string; account_id: number; test_account_id: number | null }[]>`
            SELECT app_uuid, account_id, test_account_id FROM apps
            WHERE app_uuid = ANY(${uuids}::text[]) AND developer_id = ${developerId} AND deleted_at IS NULL
            ORDER BY app_uuid COLLATE "C" FOR UPDATE`;
          const source = apps.find((app) => app.app_uuid === appUuid);
          if (!source) return { outcome: 'not_found' };
          const destination = target === null ? undefined : apps.find((app) => app.app_uuid === target);
          if (target !== null && (!destination || target === appUuid)) return { outcome: 'destination_not_found' };
          const testAccount = source.test_account_id;
          // Locked too: a request holding credits of the app waits for this answer, or this for it.
          const balances = await tx<{ id: number; balance_micro: number; held_micro: number }[]>`
            SELECT id, balance_micro, held_micro FROM accounts
            WHERE id = ANY(${[source.account_id, testAccount ?? source.account_id]}::bigint[]) ORDER BY id FOR UPDATE`;
          const of = (id: number | null) => balances.find((row) => row.id === id) ?? { balance_micro: 0, held_micro: 0 };
          const balanceMicro = of(source.account_id).balance_micro;
          const testBalanceMicro = of(testAccount).balance_micro;
          const heldMicro = of(source.account_id).held_micro + of(testAccount).held_micro;
          if (heldMicro > 0 || ((balanceMicro > 0 || testBalanceMicro > 0) && !moveTo)) {
            return { outcome: 'holds_credits', balanceMicro, testBalanceMicro, heldMicro };
          }
          const liveTo = destination?.account_id ?? (await accounts.of({ kind: 'promotions' }, tx));
          const testTo = target !== null && testBalanceMicro > 0 ? await accounts.of({ kind: 'app', appUuid: target, test: true }, tx) : null;
          const moves = [
            ...balanceMoveEntries(appUuid, at, { from: source.account_id, to: liveTo, amountMicro: balanceMicro }),
            ...(testAccount === null ? [] : balanceMoveEntries(appUuid, at, { from: testAccount, to: testTo, amountMicro: testBalanceMicro })),
          ];
          for (const move of moves) await ledger.post(tx, move.accountId, move.grant);
          await tx`UPDATE apps SET deleted_at = ${at}, idp_app_id = NULL WHERE app_uuid = ${appUuid}`;
          return { outcome: 'deleted', movedMicro: balanceMicro, movedTestMicro: testBalanceMicro };
        }),
      );
    },

    async setIdp(appUuid, idp, at) {
      try {
        return await changing(() =>
          sql.begin(async (tx) => {
            if (idp) {
              const [holder] = await tx<{ app_uuid: string }[]>`
                SELECT app_uuid FROM apps
                WHERE idp_app_id = ${idp.idpAppId} AND developer_id = (SELECT developer_id FROM apps WHERE app_uuid = ${appUuid})`;
              if (holder && holder.app_uuid !== appUuid) return 'taken' as const;
            }
            // The app keeps its place among the id's holders while it keeps the id (a new key
            // included); taking an id it did not hold puts it after every holder (migration 5).
            const idpAppId = idp?.idpAppId ?? null;
            await tx`
              UPDATE apps SET
                idp_order = CASE WHEN ${idpAppId}::text IS NULL THEN NULL WHEN idp_app_id = ${idpAppId} THEN idp_order
                                 ELSE nextval('apps_idp_order') END,
                idp_app_id = ${idpAppId}, idp_verification_key = ${idp?.verificationKey ?? null},
                idp_updated_at = ${idp ? at : null}, updated_at = ${at}
              WHERE app_uuid = ${appUuid}`;
            return byId(tx, appUuid);
          }),
        );
      } catch (error) {
        // Another instance gave the id to another app of the developer between our check and write.
        if (isUniqueViolation(error, 'apps_idp_per_developer')) return 'taken';
        throw error;
      }
    },

    async findByIdpAppId(idpAppId) {
      const rows = await sql<HeldAppRow[]>`
        SELECT ${columns} FROM ${from} WHERE a.idp_app_id = ${idpAppId} AND a.deleted_at IS NULL
        ORDER BY a.idp_order, a.app_uuid COLLATE "C"`;
      return rows.map((row) => toApp(row, row.held_micro));
    },
  };
}
