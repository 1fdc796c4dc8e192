import { randomUUID } from 'node:crypto';
import { openPostgres, type PostgresOptions } from './database.js';
import { createAccounts } from './accounts.js';
import { createLedger } from './ledger.js';
import { createInstance } from './instances.js';
import { createMeteringRepository } from './metering.js';
import { createRateCounters } from './rate-counters.js';
import { createDevelopersRepository } from './developers.js';
import { createAppsRepository } from './apps.js';
import { createApiKeysRepository, createKeyCache } from './api-keys.js';
import { createUsersRepository } from './users.js';
import { createUsageRepository } from './usage.js';
import { createCreditsRepository } from './credits.js';
import { createCheckoutRepository } from './checkout.js';
import { createResponsesRepository } from './responses.js';
import { createTextRepository } from './text.js';
import { createSigningKeysRepository } from './signing-keys.js';
import { createSubscriptionsRepository } from './subscriptions.js';
import type { Store } from '../types.js';

/**
 * The store for several instances over one PostgreSQL database (`svc serve --db postgres://…`):
 * the same contract as SQLite, with everything that must be shared (holds, rate counters, the
 * billing clock's lease, who runs a background response) in the database.
 */
export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<Store> {
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
  return {
    developers: createDevelopersRepository(sql),
    apps: createAppsRepository(sql, ledger, keyCache),
    apiKeys: createApiKeysRepository(sql, keyCache),
    users: createUsersRepository(sql, ledger, accounts),
    metering: createMeteringRepository(sql, accounts, instance.instanceId),
    usage: createUsageRepository(sql),
    responses: createResponsesRepository(sql, instance.instanceId),
    signingKeys: createSigningKeysRepository(sql),
    text: createTextRepository(sql),
    coordination: { leads: (task) => instance.leads(task), exclusively: (task, work) => instance.exclusively(task, work) },
    rateCounters: createRateCounters(sql),
    credits: createCreditsRepository(sql, ledger, accounts),
    checkout: createCheckoutRepository(sql, ledger, accounts),
    subscriptions: createSubscriptionsRepository(sql),
    async schemaVersion() {
      const [row] = await sql<{ version: number }[]>`SELECT MAX(version) AS version FROM svc_schema`;
      return row?.version ?? 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      await instance.stop().catch(() => {});
      await sql.end({ timeout: 5 });
    },
  };
}
