import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openStore } from '../../server/store/open.js';
import type { Store } from '../../server/store/types.js';
import { freshSchema, testDatabaseUrl } from './postgres.js';

/**
 * The store's contract, run once per backend (as kysely runs each test file once per dialect):
 * SQLite always, PostgreSQL whenever SVC_TEST_DATABASE_URL names a database (.ci/run makes one),
 * so the two implementations are held to the same cases and cannot drift apart.
 */
export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A new, empty, migrated store; `close()` closes it and gives its database back. */
  open(): Promise<{ store: Store; close(): Promise<void> }>;
}

const sqlite: Backend = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    const store = await openStore(join(dir, 'svc.db'));
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
  async open() {
    const schema = await freshSchema();
    const store = await openStore(schema.url, { poolSize: 4 });
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
