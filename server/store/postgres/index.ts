import { randomUUID } from 'node:crypto';
import { openPostgres, type PostgresOptions } from './database.js';
import { createAccounts } from './accounts.js';
import { createLedger } from './ledger.js';
import { createInstance } from './instances.js';
import { createMeteringRepository } from './metering.js';
import { createRateCounters } from './rate-counters.js';
import { createPostgresBreakers } from './breakers.js';
import { createDevelopersRepository } from './developers.js';
import { createAppsRepository } from './apps.js';
import { createApiKeysRepository, createKeyCache } from './api-keys.js';
import { createUsersRepository } from './users.js';
import { createUsageRepository, rollPending } from './usage.js';
import { createRollSchedule } from '../rollup-schedule.js';
import { createCreditsRepository } from './credits.js';
import { createCheckoutRepository } from './checkout.js';
import { createResponsesRepository } from './responses.js';
import { createTextRepository } from './text.js';
import { createSigningKeysRepository } from './signing-keys.js';
import { createSubscriptionsRepository } from './subscriptions.js';
import type { Store } from '../types.js';
import { guarded } from './outage.js';

/**
 * The store for several instances over one PostgreSQL database (`svc serve --db postgres://…`):
 * the same contract as SQLite, with everything that must be shared (holds, rate counters, the
 * billing clock's lease, who runs a background response) in the database.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresOptions & { now?: () => number; log?: (line: string) => void; rollAfterMs?: number | null } = {},
): Promise<Store> {
  const sql = await openPostgres(url, options);
  const instance = createInstance(sql, `inst_${randomUUID()}`);
  try {
    await instance.start();
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  const ledger = createLedger();
  const accounts = createAccounts(sql);
  const keyCache = createKeyCache();
  let closed = false;
  const rateCounters = createRateCounters(sql);
  const rolls = createRollSchedule((limit) => rollPending(sql, limit), { afterMs: options.rollAfterMs, log: options.log });
  const metering = createMeteringRepository(sql, accounts, instance.instanceId, rateCounters, rolls.written);
  return {
    developers: guarded(createDevelopersRepository(sql)),
    apps: guarded(createAppsRepository(sql, ledger, accounts, keyCache)),
    apiKeys: guarded(createApiKeysRepository(sql, keyCache)),
    users: guarded(createUsersRepository(sql, ledger, accounts)),
    metering: guarded(metering),
    usage: guarded(createUsageRepository(sql, rolls)),
    responses: guarded(createResponsesRepository(sql, instance.instanceId)),
    signingKeys: guarded(createSigningKeysRepository(sql)),
    text: guarded(createTextRepository(sql)),
    coordination: guarded({ leads: (task) => instance.leads(task), exclusively: (task, work) => instance.exclusively(task, work) }),
    rateCounters: guarded(rateCounters),
    breakers: guarded(createPostgresBreakers(sql, options.now)),
    credits: guarded(createCreditsRepository(sql, ledger, accounts)),
    checkout: guarded(createCheckoutRepository(sql, ledger, accounts)),
    subscriptions: guarded(createSubscriptionsRepository(sql)),
    async schemaVersion() {
      const [row] = await sql<{ version: number }[]>`SELECT MAX(version) AS version FROM svc_schema`;
      return row?.version ?? 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Settlements queued or being written are the money of requests already answered.
      await metering.drain();
      await rolls.close();
      await instance.stop().catch(() => {});
      await sql.end({ timeout: 5 });
    },
  };
}
