import { createCheckpointing } from './checkpointer.js';
import { createCoordination } from './coordination.js';
import { openDatabase, type Synchronous } from './database.js';
import { createAccounts } from './accounts.js';
import { createLedger } from './ledger.js';
import { createHolds } from './holds.js';
import { createRateCounters } from './rate-counters.js';
import { createMemoryBreakers } from '../memory-breakers.js';
import { createCreditsRepository } from './credits.js';
import { createCheckoutRepository } from './checkout.js';
import { createAppsRepository } from './apps.js';
import { createApiKeysRepository } from './api-keys.js';
import { createUsersRepository } from './users.js';
import { createMeteringRepository } from './metering.js';
import { createUsageRepository } from './usage.js';
import { createUsageRoller } from './usage-rows.js';
import { createRollSchedule } from '../rollup-schedule.js';
import { createResponsesRepository } from './responses.js';
import { createTextRepository } from './text.js';
import { createSigningKeysRepository } from './signing-keys.js';
import { createSubscriptionsRepository } from './subscriptions.js';
import type { Store } from '../types.js';

export interface SqliteStoreOptions {
  synchronous?: Synchronous;
  /** Settlement groups committed before a worker takes over checkpointing (checkpointer.ts). */
  checkpointInBackgroundAfter?: number;
  /** How long written usage rows wait to be rolled up (rollup-schedule.ts); null: only when asked. */
  rollAfterMs?: number | null;
  log?: (line: string) => void;
}

/** Settlement groups a server commits before its log is checkpointed by a worker thread. */
const BACKGROUND_CHECKPOINT_AFTER = 500;

/** The embedded default store: one SQLite file (or `:memory:`). */
export function createSqliteStore(file: string, options: SqliteStoreOptions = {}): Store {
  const db = openDatabase(file, options.synchronous);
  const checkpointing = createCheckpointing(db, file, {
    startAfterCommits: options.checkpointInBackgroundAfter ?? BACKGROUND_CHECKPOINT_AFTER,
    ...(options.log ? { log: options.log } : {}),
  });
  const holds = createHolds();
  const ledger = createLedger(db, holds);
  const keyCache = new Map();
  const accounts = createAccounts(db);
  const rateCounters = createRateCounters();
  const rolls = createRollSchedule(createUsageRoller(db), { afterMs: options.rollAfterMs, log: options.log });
  const metering = createMeteringRepository(db, ledger, holds, accounts, rateCounters, () => {
    checkpointing.committed();
    rolls.written();
  });
  const insertDeveloper = db.prepare('INSERT INTO developers (id, name, created_at) VALUES (@id, @name, @createdAt)');
  const countDevelopers = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM developers');
  const listDevelopers = db.prepare<[], { id: string; name: string; created_at: string; apps: number }>(
    `SELECT d.id, d.name, d.created_at, (SELECT COUNT(*) FROM apps a WHERE a.developer_id = d.id AND a.deleted_at IS NULL) AS apps
     FROM developers d ORDER BY d.created_at, d.id`,
  );

  return {
    developers: {
      async create(developer) {
        insertDeveloper.run(developer);
        return developer;
      },
      async count() {
        return countDevelopers.get()?.n ?? 0;
      },
      async list() {
        return listDevelopers.all().map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at, apps: row.apps }));
      },
    },
    apps: createAppsRepository(db, ledger, holds, accounts, () => keyCache.clear()),
    apiKeys: createApiKeysRepository(db, holds, keyCache),
    users: createUsersRepository(db, ledger, holds, accounts),
    metering,
    usage: createUsageRepository(db, rolls),
    coordination: createCoordination(),
    rateCounters,
    breakers: createMemoryBreakers(),
    credits: createCreditsRepository(db, ledger, accounts),
    checkout: createCheckoutRepository(db, ledger, accounts),
    responses: createResponsesRepository(db),
    text: createTextRepository(db),
    signingKeys: createSigningKeysRepository(db),
    subscriptions: createSubscriptionsRepository(db),
    async schemaVersion() {
      return db.pragma('user_version', { simple: true }) as number;
    },
    async close() {
      if (!db.open) return;
      metering.flushPending();
      await rolls.close();
      await checkpointing.close();
      db.close();
    },
  };
}
