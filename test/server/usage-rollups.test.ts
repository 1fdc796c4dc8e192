import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { microToCredits } from '../../server/store/money.js';
import { backfillUsageRollupsSql } from '../../server/store/usage-backfill.js';
import { API, appPath, bearer, createKey, createOwnerApp, expectStatus } from '../helpers/api.js';
import { onPostgres } from '../helpers/postgres.js';
import { pricedProvider } from '../helpers/providers.js';
import { onDatabase } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The usage reports read hourly rollups, kept with each usage row; they must answer exactly what
 * the usage rows themselves say, for any window (whole hours, and partial hours at its edges).
 * The usage rows are the oracle: the reports are recomputed from them here, as the reports did
 * before there were rollups.
 */

interface UsageRow {
  app_uuid: string;
  livemode: boolean;
  key_id: string | null;
  address: string | null;
  provider: string;
  model: string;
  status: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  charged_micro: number;
  created_at: string;
}

let server: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = dir = undefined;
});

const NUMBERS = ['requests', 'refused', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'charged_micro'] as const;
const ROW_COUNTS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cache_write_1h_tokens', 'reasoning_tokens', 'charged_micro'] as const;

async function usageRows(t: TestServer): Promise<UsageRow[]> {
  const rows = await onDatabase(t, [
    `SELECT app_uuid, livemode, key_id, address, provider, model, status, ${ROW_COUNTS.join(', ')}, created_at FROM usage_events`,
  ]);
  return rows.map((row) => ({
    ...(row as unknown as UsageRow),
    livemode: Number(row.livemode) === 1,
    ...Object.fromEntries(ROW_COUNTS.map((name) => [name, Number(row[name])])),
  }));
}

/** Each rollup table, with the dimensions of its key as a usage row gives them. */
const mode = (row: UsageRow) => (row.livemode ? '1' : '0');
const ROLLUPS: Record<string, (row: UsageRow) => Record<string, string>> = {
  usage_hourly: (row) => ({
    app_uuid: row.app_uuid,
    livemode: mode(row),
    hour: row.created_at.slice(0, 13),
    address: row.address ?? '',
    key_id: row.key_id ?? '',
    provider: row.provider,
    model: row.model,
  }),
  usage_hourly_models: (row) => ({ app_uuid: row.app_uuid, livemode: mode(row), hour: row.created_at.slice(0, 13), provider: row.provider, model: row.model }),
  usage_daily_users: (row) => ({ app_uuid: row.app_uuid, livemode: mode(row), day: row.created_at.slice(0, 10), address: row.address ?? '' }),
  usage_hourly_users: (row) => ({ app_uuid: row.app_uuid, livemode: mode(row), hour: row.created_at.slice(0, 13), address: row.address ?? '' }),
};

/** Rollup rows keyed by their dimensions (the other columns), sorted, with numbers as numbers. */
const rollupTable = (rows: Record<string, unknown>[]) =>
  rows
    .map((row) => ({
      key: Object.entries(row)
        .filter(([name]) => !(NUMBERS as readonly string[]).includes(name))
        // The mode is 0/1 in SQLite and a boolean in PostgreSQL.
        .map(([name, value]) => `${name}=${name === 'livemode' ? Number(value) : String(value)}`)
        .sort()
        .join('|'),
      ...Object.fromEntries(NUMBERS.map((name) => [name, Number(row[name])])),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));

/** One usage row's part in each rollup total. */
const rowTotals = (row: UsageRow): Record<(typeof NUMBERS)[number], number> => ({
  requests: 1,
  refused: row.status === 'refused' ? 1 : 0,
  input_tokens: row.input_tokens,
  output_tokens: row.output_tokens,
  cache_read_tokens: row.cache_read_tokens,
  cache_write_tokens: row.cache_write_tokens + row.cache_write_1h_tokens,
  reasoning_tokens: row.reasoning_tokens,
  charged_micro: row.charged_micro,
});

/** What a rollup table should hold: the usage rows summed per its dimensions. */
function rollupOf(rows: UsageRow[], dimensions: (row: UsageRow) => Record<string, string>) {
  const sums = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const dims = dimensions(row);
    const key = Object.values(dims).join('|');
    const sum = sums.get(key) ?? { ...dims, ...Object.fromEntries(NUMBERS.map((name) => [name, 0])) };
    const totals = rowTotals(row);
    for (const name of NUMBERS) sum[name] = (sum[name] as number) + totals[name];
    sums.set(key, sum);
  }
  return rollupTable([...sums.values()]);
}

/** Every rollup table equals the usage rows summed per its dimensions. */
async function expectRollupsOf(t: TestServer, rows: UsageRow[]) {
  for (const [table, dimensions] of Object.entries(ROLLUPS)) {
    expect(rollupTable(await onDatabase(t, [`SELECT * FROM ${table}`])), table).toEqual(rollupOf(rows, dimensions));
  }
}

/** The totals of some usage rows, as the API shows them. */
function totalsOf(rows: UsageRow[]) {
  return {
    requests: rows.length,
    refused_requests: rows.filter((row) => row.status === 'refused').length,
    input_tokens: rows.reduce((sum, row) => sum + row.input_tokens, 0),
    cached_input_tokens: rows.reduce((sum, row) => sum + row.cache_read_tokens, 0),
    cache_write_tokens: rows.reduce((sum, row) => sum + row.cache_write_tokens + row.cache_write_1h_tokens, 0),
    output_tokens: rows.reduce((sum, row) => sum + row.output_tokens, 0),
    reasoning_tokens: rows.reduce((sum, row) => sum + row.reasoning_tokens, 0),
    credits: microToCredits(rows.reduce((sum, row) => sum + row.charged_micro, 0)),
  };
}

function groupBy<K>(rows: UsageRow[], keyOf: (row: UsageRow) => K): Map<K, UsageRow[]> {
  const groups = new Map<K, UsageRow[]>();
  for (const row of rows) groups.set(keyOf(row), [...(groups.get(keyOf(row)) ?? []), row]);
  return groups;
}

const bytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The reports of one app in one mode (and optionally one user) over [start, end], computed from the usage rows. */
function expectedReports(rows: UsageRow[], appUuid: string, livemode: boolean, start: string, end: string, address?: string) {
  const inWindow = rows.filter(
    (row) =>
      row.app_uuid === appUuid &&
      row.livemode === livemode &&
      row.created_at >= start &&
      row.created_at <= end &&
      (address === undefined || row.address === address),
  );
  const charged = (group: UsageRow[]) => group.reduce((sum, row) => sum + row.charged_micro, 0);
  const models = [...groupBy(inWindow, (row) => `${row.provider}/${row.model}`)]
    .sort(([a, x], [b, y]) => charged(y) - charged(x) || bytes(a, b))
    .map(([model, group]) => ({ model, ...totalsOf(group) }));
  const users = [...groupBy(inWindow, (row) => row.address ?? '')]
    .sort(([a, x], [b, y]) => charged(y) - charged(x) || y.length - x.length || bytes(a, b))
    .map(([who, group]) => ({ address: who === '' ? null : who, ...totalsOf(group) }));
  // Rows by the start of their hour and of their day, as the buckets name them.
  const hours = groupBy(inWindow, (row) => `${row.created_at.slice(0, 13)}:00:00.000Z`);
  const days = groupBy(inWindow, (row) => `${row.created_at.slice(0, 10)}T00:00:00.000Z`);
  return { models, users, hours, days, totals: totalsOf(inWindow) };
}

describe('usage rollups', () => {
  it('agree with the usage rows after mixed traffic across hours and days, and the reports answer as the rows do for any window', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-rollups-'));
    server = await startTestServer({ providers: [pricedProvider()], ...(onPostgres ? {} : { dbPath: join(dir, 'svc.db') }) });
    const t = server;

    // Apps: the owner's, a funded second one, and one with no credits (its paid requests are refused).
    const second = await createOwnerApp(t, { name: 'second', balanceCredits: 1000 });
    const broke = await createOwnerApp(t, { name: 'broke' });
    const keys = {
      owner: t.liveKey,
      ownerOther: (await createKey(t, t.appUuid, { name: 'other', role: 'inference' })).secret as string,
      ownerTest: t.testKey,
      second: (await createKey(t, second.appUuid, { name: 'second' })).secret as string,
      broke: (await createKey(t, broke.appUuid, { name: 'broke' })).secret as string,
    };
    // Users of the owner's app, signed in through the sandbox identity provider (test mode) with
    // a token issued at the time they call.
    expectStatus(await t.call('PUT', appPath(t.appUuid, 'idp'), { body: { idp_app_id: `sandbox_${t.appUuid}` } }), 200);
    const users = Array.from({ length: 3 }, () => `0x${randomBytes(20).toString('hex')}`);
    const signIn = async (address: string) => {
      const issued = await t.call('POST', `${API}/sandbox/identity-token`, { key: t.testKey, body: { address } });
      expectStatus(issued, 200);
      return bearer(issued.body.token as string);
    };

    const chat = (model: string, options: { key?: string | null; headers?: Record<string, string> }, words: number) =>
      t.call('POST', `${API}/chat/completions`, {
        ...options,
        body: { model, max_tokens: 12, messages: [{ role: 'user', content: Array.from({ length: words }, (_, i) => `w${i}`).join(' ') }] },
      });
    const statuses = new Set<number>();
    // Six UTC hours of four days, with requests on the last millisecond of a day and the first of the next.
    const times = [
      '2026-03-01T12:00:00.000Z',
      '2026-03-01T12:23:00.007Z',
      '2026-03-01T23:59:59.999Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-02T14:00:00.000Z',
      '2026-03-02T14:23:00.007Z',
      '2026-03-03T09:46:00.014Z',
      '2026-03-04T01:09:00.021Z',
    ];
    for (const [step, at] of times.entries()) {
      t.clock.set(at);
      const [user, other] = [users[step % 3] as string, users[(step + 1) % 3] as string];
      const calls = [
        chat('paid/echo', { key: keys.owner }, 1 + step),
        chat('local/echo', { key: keys.ownerOther }, 2),
        chat('local/echo', { key: keys.ownerTest }, step),
        chat('paid/echo', { key: keys.ownerTest }, 1), // refused: test keys reach only the local provider
        chat('paid/echo', { key: keys.second }, 3),
        chat('paid/echo', { key: keys.broke }, 2), // refused: the app has no credits
        chat('local/echo', await signIn(user), 1 + (step % 4)),
        chat('paid/echo', await signIn(other), 1), // refused: a sandbox user is in test mode
      ];
      for (const answer of await Promise.all(calls)) statuses.add(answer.status);
    }
    expect([...statuses].sort()).toEqual([200, 402, 403]);

    const rows = await usageRows(t);
    expect(rows).toHaveLength(64);
    expect(new Set(rows.map((row) => row.created_at)).size).toBe(times.length);
    // Once rolled up, every usage row is in its rollups, and nothing else is.
    await t.server.store.usage.rollUp();
    await expectRollupsOf(t, rows);

    const windows: [string, string][] = [
      ['2026-02-28T00:00:00.000Z', '2026-03-05T00:00:00.000Z'], // whole days only
      ['2026-03-01T12:10:00.000Z', '2026-03-03T09:59:59.999Z'], // a partial first hour, whole hours, a whole day
      ['2026-03-01T12:00:00.000Z', '2026-03-02T00:00:00.000Z'], // ends on the request at 00:00:00.000, inclusive
      ['2026-03-01T23:30:00.000Z', '2026-03-04T01:20:00.000Z'], // partial hours at both ends, whole days between
      ['2026-03-02T14:00:00.001Z', '2026-03-02T14:50:00.000Z'], // inside one hour
      ['2026-03-02T00:00:00.000Z', '2026-03-02T23:59:59.999Z'], // exactly one whole day
      ['2026-03-01T23:59:59.999Z', '2026-03-02T00:00:00.000Z'], // two milliseconds across midnight
      ['2026-03-01T12:00:00.000Z', '2026-03-01T12:10:00.000Z'], // from an hour's start to before its 12:23 requests
      ['2026-03-01T00:00:00.000Z', '2026-03-02T14:10:00.000Z'], // a whole day, whole hours, a last hour with requests after the end
    ];
    const apps = [t.appUuid, second.appUuid, broke.appUuid];
    // The owner's live admin key reads the live usage; a test key of the owner, the test usage.
    const testReader = (await createKey(t, t.appUuid, { name: 'test reader', role: 'read_only', is_test: true })).secret as string;
    const readers = [
      { livemode: true, key: t.liveKey },
      { livemode: false, key: testReader },
    ];
    for (const [start, end] of windows) {
      for (const appUuid of apps) for (const { livemode, key } of readers) {
        const expected = expectedReports(rows, appUuid, livemode, start, end);
        const get = (path: string) => t.call('GET', path, { key });
        const usage = await get(`${appPath(appUuid, 'usage')}?granularity=hour&start_time=${start}&end_time=${end}`);
        expectStatus(usage, 200);
        expect(usage.body.models, `${appUuid} ${start}..${end}`).toEqual(expected.models);
        for (const bucket of usage.body.data) expect(bucket).toEqual({ start: bucket.start, ...totalsOf(expected.hours.get(bucket.start) ?? []) });
        // The totals are the buckets' (a window ending exactly on an hour has no bucket for its last millisecond).
        const bucketed = usage.body.data.flatMap((bucket: { start: string }) => expected.hours.get(bucket.start) ?? []);
        expect(usage.body.totals).toEqual(totalsOf(bucketed));
        const days = await get(`${appPath(appUuid, 'usage')}?start_time=${start}&end_time=${end}`);
        expectStatus(days, 200);
        expect(days.body.models).toEqual(expected.models);
        for (const bucket of days.body.data) expect(bucket).toEqual({ start: bucket.start, ...totalsOf(expected.days.get(bucket.start) ?? []) });
        const dayBucketed = days.body.data.flatMap((bucket: { start: string }) => expected.days.get(bucket.start) ?? []);
        expect(days.body.totals).toEqual(totalsOf(dayBucketed));
        const perUser = await get(`${appPath(appUuid, 'usage', 'users')}?start_time=${start}&end_time=${end}`);
        expect(perUser.body).toMatchObject({ total: expected.users.length, data: expected.users });
        const page = await get(`${appPath(appUuid, 'usage', 'users')}?start_time=${start}&end_time=${end}&limit=1&offset=1`);
        expect(page.body).toMatchObject({ total: expected.users.length, data: expected.users.slice(1, 2) });
        const past = await get(`${appPath(appUuid, 'usage', 'users')}?start_time=${start}&end_time=${end}&offset=${expected.users.length}`);
        expect(past.body).toMatchObject({ total: expected.users.length, data: [] });
      }
      // A user's own report covers that user only (a sandbox user: in test mode).
      for (const user of users) {
        const mine = await t.call('GET', `${API}/usage/models?start=${start}&end=${end}`, await signIn(user));
        expectStatus(mine, 200);
        expect(mine.body.data).toEqual(expectedReports(rows, t.appUuid, false, start, end, user).models);
      }
    }

    // The migration's backfill builds the same rollups from the usage rows.
    await onDatabase(t, [...Object.keys(ROLLUPS).map((table) => `DELETE FROM ${table}`), backfillUsageRollupsSql, 'SELECT 1']);
    await expectRollupsOf(t, rows);
  });

  it('a usage row keeps the route targets tried before the one that answered, as JSON, and null when the first answered', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-attempts-'));
    server = await startTestServer({ providers: [pricedProvider()], ...(onPostgres ? {} : { dbPath: join(dir, 'svc.db') }) });
    const t = server;
    const row = {
      appUuid: t.appUuid,
      livemode: true,
      keyId: null,
      address: null,
      provider: 'paid',
      model: 'echo',
      operation: 'chat.completions',
      inputTokens: 0,
      outputTokens: 0,
      costMicro: 0,
      latencyMs: 0,
      ttftMs: null,
      status: 'refused' as const,
      errorCode: 'insufficient_credits',
      at: t.clock.now().toISOString(),
    };
    const attempts = [
      { model: 'acme/gpt-fake', errorClass: 'rate_limited', latencyMs: 120 },
      { model: 'claude/claude-sonnet-4-5', errorClass: 'server_error', latencyMs: 3000 },
    ];
    await t.server.store.usage.record({ ...row, requestId: 'req_after_two', attempts });
    await t.server.store.usage.record({ ...row, requestId: 'req_first_answered' });
    const stored = await onDatabase(t, [`SELECT request_id, attempts FROM usage_events ORDER BY request_id`]);
    expect(stored.map((r) => ({ request_id: r.request_id, attempts: r.attempts === null ? null : JSON.parse(String(r.attempts)) }))).toEqual([
      {
        request_id: 'req_after_two',
        attempts: [
          { model: 'acme/gpt-fake', error_class: 'rate_limited', latency_ms: 120 },
          { model: 'claude/claude-sonnet-4-5', error_class: 'server_error', latency_ms: 3000 },
        ],
      },
      { request_id: 'req_first_answered', attempts: null },
    ]);
  });
});
