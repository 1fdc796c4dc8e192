import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { timeOrderedId } from '../../server/ids.js';
import { openDatabase } from '../../server/store/sqlite/database.js';
import { createHolds } from '../../server/store/sqlite/holds.js';
import { createLedger } from '../../server/store/sqlite/ledger.js';
import { createGroupUsageWriter, createUsageRoller } from '../../server/store/sqlite/usage-rows.js';
import { ROLL_BATCH } from '../../server/store/rollup-schedule.js';
import type { UsageEvent } from '../../server/store/types.js';
import { tempHome } from './lib/processes.js';
import { printTable } from './lib/table.js';

/** Settlements already in the database when the measure starts: a server some weeks in. */
const PREFILL = Number(process.env.BENCH_SETTLED_ROWS ?? 300_000);
const MEASURED = 22_000;
/** Settlements a group commits together: about what gateway-load's 32 connections make. */
const GROUP = 11;
/** Groups between two rolls of the pending rows into the rollups: about what the server's schedule does at that load. */
const GROUPS_A_ROLL = 20;

/** The request ids svc made before: random, so each lands on a page of its own in the indexes keyed by it. */
const randomRequestId = () => `req_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/**
 * What a settlement writes on SQLite, keyed by its request id: the usage row (unique by request
 * id), the ledger entry (unique by `usage:<request id>`) and the balance — the store's own
 * statements, in groups as the metering store commits them — and the rolls that add the rows to
 * the rollups.
 */
function measure(dir: string, requestId: () => string): { cpuUs: number; wallUs: number } {
  const file = join(dir, `settle-${randomUUID()}.db`);
  const db = openDatabase(file);
  try {
    const ledger = createLedger(db, createHolds());
    const usage = createGroupUsageWriter(db);
    const roll = createUsageRoller(db);
    const accountId = ledger.openAccount();
    db.prepare('UPDATE accounts SET balance_micro = ? WHERE id = ?').run(Number.MAX_SAFE_INTEGER, accountId);
    const at = new Date().toISOString();
    const settle = () => {
      const row: UsageEvent = {
        requestId: requestId(),
        appUuid: 'bench-app',
        keyId: null,
        address: null,
        provider: 'fake',
        model: 'gpt-fake',
        operation: 'chat.completions',
        livemode: true,
        inputTokens: 12,
        outputTokens: 10,
        costMicro: 780,
        latencyMs: 3,
        ttftMs: null,
        status: 'ok',
        errorCode: null,
        at,
      };
      const id = usage.insert(row, row.costMicro, row.costMicro);
      ledger.charge(accountId, { amountMicro: -780, kind: 'inference', idempotencyKey: `usage:${row.requestId}`, reference: 'fake/gpt-fake', at });
      return id as number;
    };
    const group = db.transaction((size: number) => Array.from({ length: size }, settle));
    for (let done = 0; done < PREFILL; done += 10_000) {
      group(Math.min(10_000, PREFILL - done));
      while (roll(ROLL_BATCH) === ROLL_BATCH);
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let done = 0, groups = 1; done < MEASURED; done += GROUP, groups++) {
      group(GROUP);
      if (groups % GROUPS_A_ROLL === 0) roll(ROLL_BATCH);
    }
    const wall = Number(process.hrtime.bigint() - started) / 1e3;
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / MEASURED, wallUs: wall / MEASURED };
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  }
}

/**
 * `npm run bench settle-keys`: what a settlement costs on a grown SQLite database, with request
 * ids in the order they were made (server/ids.ts) and with the random ones svc made before.
 */
export async function settleKeys(): Promise<void> {
  const dir = tempHome('svc-bench-settle-');
  try {
    const rows = [
      ['random (before)', measure(dir, randomRequestId)],
      ['in time order (timeOrderedId)', measure(dir, () => timeOrderedId('req'))],
    ] as const;
    printTable(
      `settle-keys: a settlement on SQLite after ${PREFILL.toLocaleString('en')} (groups of ${GROUP}, ${MEASURED.toLocaleString('en')} measured)`,
      ['request ids', 'CPU per settlement', 'wall per settlement'],
      rows.map(([name, { cpuUs, wallUs }]) => [name, `${cpuUs.toFixed(1)} µs`, `${wallUs.toFixed(1)} µs`]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
