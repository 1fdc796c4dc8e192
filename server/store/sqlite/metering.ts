import type { Db } from './database.js';
import type { Ledger } from './ledger.js';
import type { Payer, Store, UsageEvent } from '../types.js';

export function createMeteringRepository(db: Db, ledger: Ledger): Store['metering'] {
  const appAccount = db.prepare<[string], { account_id: number }>('SELECT account_id FROM apps WHERE app_uuid = ?');
  const userAccount = db.prepare<[string, string], { account_id: number }>(
    'SELECT account_id FROM app_users WHERE app_uuid = ? AND address = ?',
  );
  const reserve = db.prepare(
    'UPDATE accounts SET held_micro = held_micro + @amount WHERE id = @id AND balance_micro - held_micro >= @amount',
  );
  const release = db.prepare('UPDATE accounts SET held_micro = MAX(0, held_micro - ?) WHERE id = ?');
  const read = db.prepare<[number], { balance_micro: number; held_micro: number }>(
    'SELECT balance_micro, held_micro FROM accounts WHERE id = ?',
  );
  const addSpend = db.prepare('UPDATE app_users SET spent_micro = spent_micro + ? WHERE app_uuid = ? AND address = ?');
  const insertUsage = db.prepare(
    `INSERT INTO usage_events (request_id, app_uuid, key_id, address, provider, model, operation, input_tokens,
       output_tokens, cost_micro, latency_ms, ttft_ms, status, error_code, created_at)
     VALUES (@requestId, @appUuid, @keyId, @address, @provider, @model, @operation, @inputTokens, @outputTokens,
       @costMicro, @latencyMs, @ttftMs, @status, @errorCode, @at)`,
  );

  const accountOf = (payer: Payer): number => {
    const row = payer.kind === 'app' ? appAccount.get(payer.appUuid) : userAccount.get(payer.appUuid, payer.address);
    if (!row) throw new Error(`no account for ${JSON.stringify(payer)}`);
    return row.account_id;
  };

  return {
    async hold(payer, amountMicro) {
      return db.transaction(() => {
        const id = accountOf(payer);
        if (amountMicro <= 0 || reserve.run({ amount: amountMicro, id }).changes === 1) return { ok: true as const };
        const row = read.get(id);
        return { ok: false as const, availableMicro: Math.max(0, (row?.balance_micro ?? 0) - (row?.held_micro ?? 0)) };
      })();
    },

    async settle(payer, heldMicro, costMicro, usage: UsageEvent) {
      return db.transaction(() => {
        const id = accountOf(payer);
        release.run(heldMicro, id);
        const row = read.get(id);
        const available = Math.max(0, (row?.balance_micro ?? 0) - (row?.held_micro ?? 0));
        const charged = Math.min(costMicro, available);
        if (charged > 0) {
          ledger.post(id, {
            amountMicro: -charged,
            kind: 'inference',
            idempotencyKey: `usage:${usage.requestId}`,
            reference: `${usage.provider}/${usage.model}`,
            at: usage.at,
          });
        }
        if (usage.address && charged > 0) addSpend.run(charged, usage.appUuid, usage.address);
        insertUsage.run({ ...usage, costMicro: charged });
        return { chargedMicro: charged };
      })();
    },

    async balance(payer) {
      const row = read.get(accountOf(payer));
      return { balanceMicro: row?.balance_micro ?? 0, heldMicro: row?.held_micro ?? 0 };
    },
  };
}
