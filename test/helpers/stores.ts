import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openStore } from '../../server/store/open.js';
import type { Store, UsageEvent } from '../../server/store/types.js';
import { freshSchema, testDatabaseUrl } from './postgres.js';

/**
 * The store's contract, run once per backend (as kysely runs each test file once per dialect):
 * SQLite always, PostgreSQL whenever SVC_TEST_DATABASE_URL names a database (.ci/run makes one),
 * so the two implementations are held to the same cases and cannot drift apart.
 */
export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A new, empty, migrated store; `close()` closes it and gives its database back. */
  open(options?: StoreOptions): Promise<{ store: Store; close(): Promise<void> }>;
}

/** What a case may set of the store it opens. */
type StoreOptions = Pick<NonNullable<Parameters<typeof openStore>[1]>, 'rollAfterMs'>;

const sqlite: Backend = {
  name: 'sqlite',
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    const store = await openStore(join(dir, 'svc.db'), options);
    return {
      store,
      close: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const postgresBackend: Backend = {
  name: 'postgres',
  async open(options = {}) {
    const schema = await freshSchema();
    const store = await openStore(schema.url, { poolSize: 4, ...options });
    return {
      store,
      close: async () => {
        await store.close();
        await schema.drop();
      },
    };
  },
};

export const backends: Backend[] = testDatabaseUrl ? [sqlite, postgresBackend] : [sqlite];

/** `describe` once per backend, with the backend to open stores from. */
export function describeEachBackend(title: string, suite: (backend: Backend) => void): void {
  for (const backend of backends) describe(`${title} [${backend.name}]`, () => suite(backend));
}

/** The store tests' clock reading: one fixed instant. */
export const STORE_TEST_AT = '2026-11-25T10:00:00.000Z';
export const credits = (n: number) => n * 1_000_000;

/** A developer of its own, with a live app helper: `newApp(balance)` grants its balance at creation. */
export async function newDeveloper(store: Store) {
  const developerId = `dev_${randomUUID()}`;
  await store.developers.create({ id: developerId, name: 'Ada', createdAt: STORE_TEST_AT });
  const newApp = (balance = 0, appType: 'standard' | 'pooled_api' = 'standard') => {
    const appUuid = randomUUID();
    const app = { appUuid, developerId, name: `app ${appUuid.slice(0, 6)}`, appType, defaultUserCreditsMicro: 0, allowedOrigins: [], at: STORE_TEST_AT };
    const grant = balance > 0 ? { amountMicro: credits(balance), kind: 'grant', idempotencyKey: `create:${appUuid}`, at: STORE_TEST_AT } : undefined;
    return store.apps.create(app, grant);
  };
  return { developerId, newApp };
}

/** A usage row of a plain live request (10 tokens in, 5 out), with what a case changes. */
export const usageRow = (appUuid: string, requestId: string, over: Partial<UsageEvent> = {}): UsageEvent => ({
  requestId,
  appUuid,
  keyId: null,
  address: null,
  provider: 'acme',
  model: 'm1',
  operation: 'chat.completions',
  livemode: true,
  inputTokens: 10,
  outputTokens: 5,
  costMicro: 0,
  latencyMs: 12,
  ttftMs: null,
  status: 'ok',
  errorCode: null,
  at: STORE_TEST_AT,
  ...over,
});
