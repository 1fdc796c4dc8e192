import type { Accounts } from './accounts.js';
import type { Db } from './database.js';
import type { Holds } from './holds.js';
import type { Ledger } from './ledger.js';
import { balanceMoveEntries } from '../app-deletion.js';
import { APP_COLUMNS, APP_FROM, toApp, type AppRow } from '../rows.js';
import type { AppDeletion, Store } from '../types.js';

/** `changed` runs after every write that can change what an API key resolves to. */
export function createAppsRepository(db: Db, ledger: Ledger, holds: Holds, accounts: Accounts, changed: () => void): Store['apps'] {
  const insert = db.prepare(
    `INSERT INTO apps (app_uuid, developer_id, account_id, name, app_type, default_user_credits_micro, allowed_origins,
       rate_limit_rpm, rate_limit_tpm, user_claims, user_budget_credits_micro, user_budget_period, created_at, updated_at)
     VALUES (@appUuid, @developerId, @accountId, @name, @appType, @defaultUserCreditsMicro, @allowedOrigins,
       @rateLimitRpm, @rateLimitTpm, @userClaims, @userBudgetMicro, @userBudgetPeriod, @at, @at)`,
  );
  // A changed default starts a fresh window for the users it applies to (those without their own),
  // as a changed key budget does.
  const restartDefaultWindows = db.prepare(
    'UPDATE app_users SET budget_window_start = NULL, budget_spent_micro = 0 WHERE app_uuid = ? AND budget_credits_micro IS NULL',
  );
  const selectOne = db.prepare<[string, string], AppRow>(
    `SELECT ${APP_COLUMNS} FROM ${APP_FROM} WHERE a.app_uuid = ? AND a.developer_id = ? AND a.deleted_at IS NULL`,
  );
  const selectById = db.prepare<[string], AppRow>(
    `SELECT ${APP_COLUMNS} FROM ${APP_FROM} WHERE a.app_uuid = ? AND a.deleted_at IS NULL`,
  );
  const selectPage = db.prepare<[string, number, number], AppRow>(
    `SELECT ${APP_COLUMNS} FROM ${APP_FROM} WHERE a.developer_id = ? AND a.deleted_at IS NULL
     ORDER BY a.created_at DESC, a.app_uuid LIMIT ? OFFSET ?`,
  );
  const count = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM apps WHERE developer_id = ? AND deleted_at IS NULL',
  );
  const softDelete = db.prepare(
    'UPDATE apps SET deleted_at = ?, idp_app_id = NULL WHERE app_uuid = ? AND developer_id = ? AND deleted_at IS NULL',
  );
  // An app keeps its place among an id's holders while it keeps the id (a new key included);
  // taking an id it did not hold puts it after every holder there is (migration 17).
  const selectAccounts = db.prepare<[string, string], { account_id: number; test_account_id: number | null }>(
    'SELECT account_id, test_account_id FROM apps WHERE app_uuid = ? AND developer_id = ? AND deleted_at IS NULL',
  );
  const updateIdp = db.prepare(
    `UPDATE apps SET
       idp_order = CASE WHEN @idpAppId IS NULL THEN NULL WHEN idp_app_id IS @idpAppId THEN idp_order
                        ELSE (SELECT COALESCE(MAX(idp_order), 0) + 1 FROM apps) END,
       idp_app_id = @idpAppId, idp_verification_key = @verificationKey, idp_updated_at = @idpAt, updated_at = @at
     WHERE app_uuid = @appUuid`,
  );

  const selectByIdpAppId = db.prepare<[string], AppRow>(
    `SELECT ${APP_COLUMNS} FROM ${APP_FROM} WHERE a.idp_app_id = ? AND a.deleted_at IS NULL ORDER BY a.idp_order, a.app_uuid`,
  );
  const selectIdpHolder = db.prepare<[string, string], { app_uuid: string }>(
    'SELECT app_uuid FROM apps WHERE idp_app_id = ? AND developer_id = (SELECT developer_id FROM apps WHERE app_uuid = ?)',
  );

  const byId = (appUuid: string) => {
    const row = selectById.get(appUuid);
    if (!row) throw new Error(`no app ${appUuid}`);
    return toApp(row, holds.of(row.account_id));
  };

  return {
    async create(app, grant) {
      return db.transaction(() => {
        const accountId = ledger.openAccount();
        insert.run({
          ...app,
          accountId,
          allowedOrigins: JSON.stringify(app.allowedOrigins),
          rateLimitRpm: app.rateLimitRpm ?? null,
          rateLimitTpm: app.rateLimitTpm ?? null,
          userClaims: app.userClaims === false ? 0 : 1,
          userBudgetMicro: app.userBudget?.limitMicro ?? null,
          userBudgetPeriod: app.userBudget?.period ?? null,
        });
        if (grant) ledger.post(accountId, grant);
        return byId(app.appUuid);
      })();
    },

    async list(developerId, page) {
      const rows = selectPage.all(developerId, page.limit, page.offset);
      return { items: rows.map((row) => toApp(row, holds.of(row.account_id))), total: count.get(developerId)?.n ?? 0 };
    },

    async get(developerId, appUuid) {
      const row = selectOne.get(appUuid, developerId);
      return row ? toApp(row, holds.of(row.account_id)) : null;
    },

    async byId(appUuid) {
      const row = selectById.get(appUuid);
      return row ? toApp(row, holds.of(row.account_id)) : null;
    },

    async update(developerId, appUuid, patch, at) {
      return db.transaction(() => {
        if (!selectOne.get(appUuid, developerId)) return null;
        changed();
        const sets: string[] = ['updated_at = @at'];
        if (patch.name !== undefined) sets.push('name = @name');
        if (patch.defaultUserCreditsMicro !== undefined) sets.push('default_user_credits_micro = @defaultUserCreditsMicro');
        if (patch.allowedOrigins !== undefined) sets.push('allowed_origins = @allowedOrigins');
        if (patch.rateLimitRpm !== undefined) sets.push('rate_limit_rpm = @rateLimitRpm');
        if (patch.rateLimitTpm !== undefined) sets.push('rate_limit_tpm = @rateLimitTpm');
        if (patch.userClaims !== undefined) sets.push('user_claims = @userClaims');
        if (patch.userBudget !== undefined) {
          sets.push('user_budget_credits_micro = @userBudgetMicro', 'user_budget_period = @userBudgetPeriod');
          restartDefaultWindows.run(appUuid);
        }
        db.prepare(`UPDATE apps SET ${sets.join(', ')} WHERE app_uuid = @appUuid`).run({
          appUuid,
          at,
          name: patch.name,
          defaultUserCreditsMicro: patch.defaultUserCreditsMicro,
          allowedOrigins: patch.allowedOrigins && JSON.stringify(patch.allowedOrigins),
          rateLimitRpm: patch.rateLimitRpm,
          rateLimitTpm: patch.rateLimitTpm,
          userClaims: patch.userClaims === undefined ? undefined : patch.userClaims ? 1 : 0,
          userBudgetMicro: patch.userBudget?.limitMicro ?? null,
          userBudgetPeriod: patch.userBudget?.period ?? null,
        });
        return byId(appUuid);
      })();
    },

    async delete(developerId, appUuid, at, moveTo) {
      // Synchronous from here to the commit: no request can hold or move these credits meanwhile.
      const source = selectAccounts.get(appUuid, developerId);
      if (!source) return { outcome: 'not_found' };
      const target = moveTo && 'appUuid' in moveTo ? moveTo.appUuid : null;
      const destination = target === null ? undefined : selectAccounts.get(target, developerId);
      if (target !== null && (!destination || target === appUuid)) return { outcome: 'destination_not_found' };
      const testAccount = source.test_account_id;
      const balanceMicro = ledger.balanceOf(source.account_id);
      const testBalanceMicro = testAccount === null ? 0 : ledger.balanceOf(testAccount);
      const heldMicro = holds.of(source.account_id) + (testAccount === null ? 0 : holds.of(testAccount));
      if (heldMicro > 0 || ((balanceMicro > 0 || testBalanceMicro > 0) && !moveTo)) {
        return { outcome: 'holds_credits', balanceMicro, testBalanceMicro, heldMicro };
      }
      // Looked up before the transaction: opening a test account commits on its own (and is
      // cached), which a rollback must not undo behind the cache's back. An empty account is harmless.
      const liveTo = destination?.account_id ?? accounts.of({ kind: 'promotions' });
      const testTo = target !== null && testBalanceMicro > 0 ? accounts.of({ kind: 'app', appUuid: target, test: true }) : null;
      return db.transaction((): AppDeletion => {
        const moves = [
          ...balanceMoveEntries(appUuid, at, { from: source.account_id, to: liveTo, amountMicro: balanceMicro }),
          ...(testAccount === null ? [] : balanceMoveEntries(appUuid, at, { from: testAccount, to: testTo, amountMicro: testBalanceMicro })),
        ];
        for (const move of moves) ledger.post(move.accountId, move.grant);
        changed();
        softDelete.run(at, appUuid, developerId);
        return { outcome: 'deleted', movedMicro: balanceMicro, movedTestMicro: testBalanceMicro };
      })();
    },

    async setIdp(appUuid, idp, at) {
      return db.transaction(() => {
        if (idp) {
          const holder = selectIdpHolder.get(idp.idpAppId, appUuid);
          if (holder && holder.app_uuid !== appUuid) return 'taken' as const;
        }
        changed();
        updateIdp.run({
          appUuid,
          idpAppId: idp?.idpAppId ?? null,
          verificationKey: idp?.verificationKey ?? null,
          idpAt: idp ? at : null,
          at,
        });
        return byId(appUuid);
      })();
    },

    async findByIdpAppId(idpAppId) {
      return selectByIdpAppId.all(idpAppId).map((row) => toApp(row, holds.of(row.account_id)));
    },
  };
}
