import Database from 'better-sqlite3';
import { onTestFailed } from 'vitest';
import { signEvent } from '../../server/payments/signature.js';

/**
 * Helpers for the reliability tests (test/reliability): a seeded random source, a bounded pool of
 * concurrent work, signed processor events, and a read-only view of a server's ledger file.
 */

/** The seed from `SVC_RELIABILITY_SEED` (to replay a failure), else `fallback`. */
export function seedFromEnv(fallback: number): number {
  const given = process.env.SVC_RELIABILITY_SEED;
  if (given === undefined || given === '') return fallback;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`SVC_RELIABILITY_SEED must be an integer (got ${given})`);
  return seed;
}

/** Prints the seed when the current test fails, with how to replay it. */
export function reportSeedOnFailure(name: string, seed: number): void {
  onTestFailed(() => {
    console.error(`${name} failed with seed ${seed}: replay with SVC_RELIABILITY_SEED=${seed}`);
  });
}

export const MICRO = 1_000_000;
export const toMicro = (credits: number) => Math.round(credits * MICRO);
/** The priced test models (paid/echo in test/helpers/providers.ts): 0.1 credit an input token, 0.2 an output token. */
export const PAID_INPUT_MICRO = 100_000;
export const PAID_OUTPUT_MICRO = 200_000;
/** What an answer of a priced test model must be charged, from the usage it reports. */
export const costOfUsage = (usage: { prompt_tokens: number; completion_tokens: number }) =>
  usage.prompt_tokens * PAID_INPUT_MICRO + usage.completion_tokens * PAID_OUTPUT_MICRO;

/** A small seeded PRNG (mulberry32): the same seed gives the same run of operations. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    /** An integer in [min, max]. */
    int,
    chance: (p: number): boolean => next() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
    /** A key of `weights`, chosen in proportion to its weight. */
    weighted<K extends string>(weights: Record<K, number>): K {
      const entries = Object.entries(weights) as [K, number][];
      let left = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [key, weight] of entries) {
        left -= weight;
        if (left < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
    hex: (length: number): string => Array.from({ length }, () => int(0, 15).toString(16)).join(''),
  };
}

export type Random = ReturnType<typeof seededRandom>;

/**
 * Runs tasks with at most `limit` in flight. `next()` hands out the next task, or `undefined`
 * when there is no more work (then the pool drains what is in flight and resolves).
 */
export async function runPool(limit: number, next: () => (() => Promise<void>) | undefined): Promise<void> {
  const worker = async () => {
    for (let task = next(); task; task = next()) await task();
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** Counts outcomes by name, for the one-line summary a run prints. */
export function createTally() {
  const counts = new Map<string, number>();
  return {
    count: (outcome: string) => void counts.set(outcome, (counts.get(outcome) ?? 0) + 1),
    summary: () => [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([outcome, n]) => `${outcome}: ${n}`).join(', '),
  };
}

/** A processor event as the webhook receiver gets it: the raw JSON and its `Stripe-Signature`. */
export function signedEvent(event: unknown, secret: string, atSeconds: number) {
  const payload = JSON.stringify(event);
  return { payload, signature: signEvent(payload, secret, atSeconds) };
}

/** `checkout.session.completed`, as the processor reports a paid session. */
export const completedEvent = (eventId: string, sessionId: string) => ({
  id: eventId,
  type: 'checkout.session.completed',
  data: { object: { id: sessionId, object: 'checkout.session', payment_status: 'paid' } },
});

export interface LedgerEntry {
  accountId: number;
  amountMicro: number;
  balanceAfterMicro: number;
  kind: string;
  idempotencyKey: string;
  reference: string | null;
}

/**
 * The server's database file opened read-only, to check the ledger behind the API's back: what
 * was written, not what the server says was written.
 */
export function openLedgerFile(path: string) {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const ENTRY = `account_id AS accountId, amount_micro AS amountMicro, balance_after_micro AS balanceAfterMicro,
    kind, idempotency_key AS idempotencyKey, reference`;
  const byKey = db.prepare<[string], LedgerEntry>(`SELECT ${ENTRY} FROM ledger_entries WHERE idempotency_key = ?`);
  const byPrefix = db.prepare<[string], LedgerEntry>(`SELECT ${ENTRY} FROM ledger_entries WHERE idempotency_key LIKE ? || '%'`);
  const ofAccountKind = db.prepare<[number, string], LedgerEntry>(`SELECT ${ENTRY} FROM ledger_entries WHERE account_id = ? AND kind = ?`);
  const appAccount = db.prepare<[string], { account_id: number }>('SELECT account_id FROM apps WHERE app_uuid = ?');
  const userAccount = db.prepare<[string, string], { account_id: number }>(
    'SELECT account_id FROM app_users WHERE app_uuid = ? AND address = ?',
  );
  const session = db.prepare<[string], { status: string; credits_micro: number }>(
    'SELECT status, credits_micro FROM checkout_sessions WHERE id = ?',
  );
  const balance = db.prepare<[number], { balance_micro: number }>('SELECT balance_micro FROM accounts WHERE id = ?');
  const negative = db.prepare<[], { n: number }>(
    `SELECT (SELECT COUNT(*) FROM accounts WHERE balance_micro < 0) + (SELECT COUNT(*) FROM ledger_entries WHERE balance_after_micro < 0) AS n`,
  );
  const events = db.prepare<[], { id: string }>('SELECT id FROM webhook_events');
  const total = db.prepare<[], { total: number }>('SELECT COALESCE(SUM(balance_micro), 0) AS total FROM accounts');
  const must = <T>(row: T | undefined, what: string): T => {
    if (!row) throw new Error(`not in the database: ${what}`);
    return row;
  };

  return {
    /** The entries an idempotency key wrote (on any account). */
    entries: (key: string) => byKey.all(key),
    entriesWithPrefix: (prefix: string) => byPrefix.all(prefix),
    entriesOf: (accountId: number, kind: string) => ofAccountKind.all(accountId, kind),
    appAccount: (appUuid: string) => must(appAccount.get(appUuid), `app ${appUuid}`).account_id,
    userAccount: (appUuid: string, address: string) => must(userAccount.get(appUuid, address), `user ${address} of ${appUuid}`).account_id,
    /** The user's account, or undefined when the user was never created. */
    findUserAccount: (appUuid: string, address: string) => userAccount.get(appUuid, address)?.account_id,
    session: (id: string) => session.get(id),
    balance: (accountId: number) => must(balance.get(accountId), `account ${accountId}`).balance_micro,
    /** Accounts and entries below zero (there must be none). */
    negatives: () => negative.get()?.n ?? 0,
    eventIds: () => events.all().map((row) => row.id),
    /** Every balance, summed: what all accounts hold together. */
    totalMicro: () => total.get()?.total ?? 0,
    close: () => db.close(),
  };
}

export type LedgerFile = ReturnType<typeof openLedgerFile>;

/** Opens the file read-only for `read`, and closes it again whatever happens. */
export async function withLedgerFile<T>(path: string, read: (ledger: LedgerFile) => T | Promise<T>): Promise<T> {
  const ledger = openLedgerFile(path);
  try {
    return await read(ledger);
  } finally {
    ledger.close();
  }
}
