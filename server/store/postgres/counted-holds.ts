import type { Sql } from './database.js';
import { createTurnGroups } from './turn-groups.js';
import type { RateCount, RateStanding } from '../types.js';

/** Where a counted request stands, and whether its credits were reserved. */
export type CountedHold = RateStanding & { held: boolean };

interface Asked {
  requestId: string;
  amountMicro: number;
  resolve(counted: CountedHold): void;
  reject(error: unknown): void;
}

/** What one batch's statement needs beside its requests. */
interface Batch {
  accountId: number;
  rate: RateCount;
}

/**
 * The usual request's first step on a shared store: counted against its caller's rate limits, the
 * tokens of its window read, and its credits reserved when both allow it. Requests that arrive in
 * one turn of the event loop for the same account and the same limits (or while the statement
 * before theirs runs: turn-groups.ts) are one statement (one
 * round trip, one commit, one lock of the account row), exactly as if they had come one after
 * another in their order: the n-th is the n-th request counted, and it is reserved when it is
 * within the limits and the balance, less what is held and what those before it reserve, covers
 * it. One that the balance cannot cover is not reserved, nor is any after it (the caller tries
 * those again alone, see metering.ts): the batch reserves a prefix, never more than is there.
 *
 * The prefix is chosen from the account row as locked; the reservation itself is the UPDATE that
 * checks the balance on the row it writes, as a single request's is, and the holds are written
 * only when it did: adding the prefix unchecked, on the locked read's word, reserved past the
 * balance under load (test/gateway/metering.test.ts on PostgreSQL).
 */
export function createCountedHolds(sql: Sql, instanceId: string) {
  const batchStatement = ({ accountId, rate }: Batch, asked: Asked[]) => sql<CountedHold[]>`
    WITH asked AS (
      SELECT request_id, amount_micro, ord
      FROM unnest(${asked.map((one) => one.requestId)}::text[], ${asked.map((one) => one.amountMicro)}::bigint[])
        WITH ORDINALITY AS asked (request_id, amount_micro, ord)
    ), counted AS (
      INSERT INTO rate_counters (key, window_start, total) VALUES (${rate.requestKey}, ${rate.windowStart}, ${asked.length})
      ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
      RETURNING total
    ), standing AS (
      SELECT request_id, amount_micro, ord, (SELECT total FROM counted) - ${asked.length} + ord AS requests,
             COALESCE((SELECT total FROM rate_counters WHERE key = ${rate.tokenKey} AND window_start = ${rate.windowStart}), 0) AS tokens
      FROM asked
    ), allowed AS (
      SELECT request_id, amount_micro, SUM(amount_micro) OVER (ORDER BY ord) AS running_micro
      FROM standing WHERE requests <= ${rate.requestLimit} AND tokens < ${rate.tokenLimit}
    ), account AS (
      SELECT id, balance_micro - held_micro AS available_micro FROM accounts WHERE id = ${accountId} FOR UPDATE
    ), fitting AS (
      SELECT allowed.request_id, allowed.amount_micro, account.id FROM allowed, account WHERE allowed.running_micro <= account.available_micro
    ), reserved AS (
      -- Checked on the row written (READ COMMITTED rechecks it on the newest version when a
      -- concurrent update got there first). When it does not hold, none is held, and each is
      -- tried again alone.
      UPDATE accounts SET held_micro = accounts.held_micro + total.micro
      FROM (SELECT SUM(amount_micro)::bigint AS micro FROM fitting) AS total
      WHERE accounts.id = ${accountId} AND total.micro IS NOT NULL AND accounts.balance_micro - accounts.held_micro >= total.micro
      RETURNING accounts.id
    ), held AS (
      INSERT INTO holds (request_id, account_id, amount_micro, instance_id, capped_address, key_id)
      SELECT request_id, id, amount_micro, ${instanceId}, NULL, NULL FROM fitting WHERE EXISTS (SELECT 1 FROM reserved) RETURNING request_id
    )
    SELECT requests, tokens, EXISTS (SELECT 1 FROM held WHERE held.request_id = standing.request_id) AS held
    FROM standing ORDER BY ord`;

  /**
   * The same for a request alone (every request on a quiet server): its plan starts in about half
   * the time of the batch's, whose unnest, window and join are there for many.
   */
  const aloneStatement = ({ accountId, rate }: Batch, { requestId, amountMicro }: Asked) => sql<CountedHold[]>`
    WITH counted AS (
      INSERT INTO rate_counters (key, window_start, total) VALUES (${rate.requestKey}, ${rate.windowStart}, 1)
      ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
      RETURNING total
    ), standing AS (
      SELECT (SELECT total FROM counted) AS requests,
             COALESCE((SELECT total FROM rate_counters WHERE key = ${rate.tokenKey} AND window_start = ${rate.windowStart}), 0) AS tokens
    ), reserved AS (
      UPDATE accounts SET held_micro = held_micro + ${amountMicro}
      WHERE id = ${accountId} AND balance_micro - held_micro >= ${amountMicro}
        AND EXISTS (SELECT 1 FROM standing WHERE requests <= ${rate.requestLimit} AND tokens < ${rate.tokenLimit})
      RETURNING id
    ), held AS (
      INSERT INTO holds (request_id, account_id, amount_micro, instance_id, capped_address, key_id)
      SELECT ${requestId}, id, ${amountMicro}, ${instanceId}, NULL, NULL FROM reserved RETURNING request_id
    )
    SELECT requests, tokens, EXISTS (SELECT 1 FROM held) AS held FROM standing`;

  const batches = createTurnGroups<Batch, Asked>((batch, asked) =>
    (asked.length === 1 ? aloneStatement(batch, asked[0]!) : batchStatement(batch, asked)).then(
      (rows) => {
        asked.forEach((one, i) => {
          const row = rows[i];
          if (row) one.resolve(row);
          else one.reject(new Error(`no rate standing for ${one.requestId}`));
        });
      },
      // One statement: when it fails, nothing of it was written, and each request fails as a
      // statement of its own would have.
      (error: unknown) => asked.forEach((one) => one.reject(error)),
    ),
  );

  return {
    /** Counts the request and reserves `amountMicro` (above 0) when its limits and the balance allow. */
    countAndReserve(accountId: number, amountMicro: number, requestId: string, rate: RateCount): Promise<CountedHold> {
      return new Promise<CountedHold>((resolve, reject) => {
        const id = `${accountId}\0${rate.requestKey}\0${rate.tokenKey}\0${rate.windowStart}\0${rate.requestLimit}\0${rate.tokenLimit}`;
        batches.add(id, { accountId, rate }, { requestId, amountMicro, resolve, reject });
      });
    },

    /** Sends what is queued now and waits for every statement in flight (at close). */
    drain: batches.drain,
  };
}
