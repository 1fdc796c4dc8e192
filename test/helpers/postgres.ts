import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openPostgres } from '../../server/store/postgres/database.js';

/**
 * PostgreSQL for tests: `SVC_TEST_DATABASE_URL` (a fresh database .ci/run creates) holds one
 * schema per test server, so servers of parallel tests never see each other's rows. The
 * `postgres` vitest project sets SVC_TEST_STORE=postgres to run the server suites on it.
 *
 * Migrating a schema costs more than most tests, so a schema given back is emptied (its rows
 * deleted, the rows migrations seed put back, its sequences restarted) and handed to the next
 * test of this worker, already migrated.
 */
export const testDatabaseUrl = process.env.SVC_TEST_DATABASE_URL;
export const onPostgres = process.env.SVC_TEST_STORE === 'postgres';

let admin: postgres.Sql | undefined;
const adminSql = () => {
  if (!testDatabaseUrl) throw new Error('SVC_TEST_DATABASE_URL is not set');
  admin ??= postgres(testDatabaseUrl, { max: 2, onnotice: () => {} });
  return admin;
};

const urlOf = (schema: string) => {
  const url = new URL(testDatabaseUrl!);
  url.searchParams.set('search_path', schema);
  // A test's commits need not survive a power loss: no disk flush per transaction.
  url.searchParams.set('synchronous_commit', 'off');
  return url.href;
};

/** Schemas emptied and ready, and what a newly migrated schema holds (the migrations' seed rows). */
const ready: string[] = [];
let seed: Promise<{ tables: string[]; rows: Map<string, unknown[]> }> | undefined;

async function migratedSchema(): Promise<string> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const sql = adminSql();
  await sql.unsafe(`CREATE SCHEMA ${schema}`);
  const migrated = await openPostgres(urlOf(schema), { poolSize: 1 });
  await migrated.end();
  seed ??= (async () => {
    const tables = (await sql<{ tablename: string }[]>`
      SELECT tablename FROM pg_tables WHERE schemaname = ${schema} AND tablename <> 'svc_schema' ORDER BY tablename`).map((row) => row.tablename);
    const rows = new Map<string, unknown[]>();
    for (const table of tables) {
      const found = await sql.unsafe(`SELECT * FROM ${schema}.${table}`);
      if (found.length > 0) rows.set(table, [...found]);
    }
    return { tables, rows };
  })();
  await seed;
  return schema;
}

/** Empties a schema back to what its migrations left, in one transaction. */
async function reset(schema: string): Promise<void> {
  const { tables, rows } = await seed!;
  await adminSql().begin(async (tx) => {
    await tx.unsafe(`SET LOCAL search_path = ${schema}`);
    // Deleting the few rows a test made is much faster than TRUNCATE's new files; with triggers
    // off (the ledger's append-only one, foreign keys) the order does not matter.
    await tx.unsafe('SET LOCAL session_replication_role = replica');
    for (const table of tables) await tx.unsafe(`DELETE FROM ${table}`);
    for (const [table, seeded] of rows) {
      await tx.unsafe(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::text::json)`, [JSON.stringify(seeded)]);
    }
    await tx.unsafe(`
      DO $$ DECLARE r record; BEGIN
        FOR r IN SELECT table_name, column_name FROM information_schema.columns
                 WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%' LOOP
          EXECUTE format('SELECT setval(%L, COALESCE((SELECT MAX(%I) FROM %I), 0) + 1, false)',
            pg_get_serial_sequence(r.table_name, r.column_name), r.column_name, r.table_name);
        END LOOP;
      END $$`);
  });
}

/**
 * An empty, migrated schema of its own, and the URL that puts a server in it; `drop()` gives it
 * back (emptied) for the next test.
 */
export async function freshSchema(): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = ready.pop() ?? (await migratedSchema());
  let given: Promise<void> | undefined;
  return {
    url: urlOf(schema),
    schema,
    drop: () =>
      (given ??= (async () => {
        await reset(schema);
        ready.push(schema);
      })()),
  };
}

/** A schema nothing has touched (not even migrations), dropped for good by `drop()`. */
export async function emptySchema(): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const sql = adminSql();
  await sql.unsafe(`CREATE SCHEMA ${schema}`);
  return { url: urlOf(schema), schema, drop: async () => void (await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)) };
}
