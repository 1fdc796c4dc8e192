import type { Query } from './database.js';
import { usageRecord, usageRecords, usageWrites } from './usage.js';
import type { BudgetWindows, TokenCount, UsageEvent } from '../types.js';

/** A settlement as the group statement takes it. */
export interface Settlement {
  costMicro: number;
  usage: UsageEvent;
  windows: BudgetWindows | undefined;
  tokens: TokenCount | undefined;
}

/** What the statement answers for the settlement at `ord`: `stored` is false in the one case it cannot tell the charge (below). */
export interface Settled {
  ord: number;
  charged: number;
  stored: boolean;
}


/**
 * One settlement as one statement, so atomic: the hold ends (it may be gone already: the
 * instance that made it was taken for dead and its holds released), the account row is
 * locked, the charge is what the balance allows beside the other holds, and the ledger
 * entry, the user's spend, the usage row (what it cost and what was charged: a shortfall
 * stays visible to svc serve --check) and its rollups are written with it. A group's statement
 * (below) does the same for many, but costs more for one: a settlement alone is this one.
 * Idempotent: a request whose usage row is there already was settled (a group retried alone
 * after its reply was lost), so nothing moves and its stored charge is the answer.
 * `stored` is false in the one case the statement cannot tell the charge: another settlement
 * of the request committed while this one ran (its row came after this statement's snapshot).
 */
export function settleOneStatement(q: Query, accountId: number, { costMicro, usage, windows, tokens }: Settlement) {
  // A write that cannot touch a row is left out: each costs its plan's start-up, rows or not.
  const charged = q`(SELECT charged FROM moved)`;
  const keySpend =
    usage.keyId !== null && windows?.key !== undefined
      ? q`, key_spend AS (
          -- The key's spend in the window its hold counted in (not a newer one: see Store.metering).
          UPDATE api_keys SET budget_spent_micro = budget_spent_micro + ${charged}
          WHERE key_id = ${usage.keyId} AND budget_window_start = ${windows.key} AND ${charged} > 0
        )`
      : q``;
  const spend =
    usage.address !== null
      ? q`, spend AS (
          -- One update of the user's row (a statement may not update a row twice): their spend, and
          -- their budget's spend in the window their hold counted in (not a newer one).
          UPDATE app_users SET spent_micro = spent_micro + ${charged},
            budget_spent_micro = budget_spent_micro
              + CASE WHEN budget_window_start = ${windows?.user ?? null} THEN ${charged} ELSE 0 END
          -- Spend in the request's own mode: a sandbox user's play money never counts against the live user of the same address.
          WHERE app_uuid = ${usage.appUuid} AND livemode = ${usage.livemode} AND address = ${usage.address} AND ${charged} > 0
        )`
      : q``;
  // The caller's tokens count in its rate window once the account is locked (after `moved`, as
  // every settlement takes its locks: the account first).
  const counted =
    tokens && tokens.tokens > 0
      ? q`, counted_tokens AS (
          INSERT INTO rate_counters (key, window_start, total) SELECT ${tokens.key}, ${tokens.windowStart}, ${tokens.tokens}::bigint FROM moved
          ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
        )`
      : q``;
  return q<Omit<Settled, 'ord'>[]>`
    WITH prior AS (
      SELECT charged_micro FROM usage_events WHERE request_id = ${usage.requestId}
    ), released AS (
      DELETE FROM holds WHERE id = (
        SELECT id FROM holds WHERE request_id = ${usage.requestId} AND account_id = ${accountId} LIMIT 1
      ) AND NOT EXISTS (SELECT 1 FROM prior) RETURNING amount_micro
    ), account AS (
      SELECT id, balance_micro, held_micro, COALESCE((SELECT SUM(amount_micro) FROM released), 0)::bigint AS released_micro
      FROM accounts WHERE id = ${accountId} AND NOT EXISTS (SELECT 1 FROM prior) FOR UPDATE
    ), charge AS (
      SELECT id, released_micro, LEAST(${costMicro}::bigint, GREATEST(0, balance_micro - (held_micro - released_micro)))::bigint AS charged FROM account
    ), moved AS (
      -- Increments on the row written, not values read: should the read ever differ from that
      -- row, no other statement's change is lost, and a charge past it is refused by the row's
      -- checks (an error) rather than written.
      UPDATE accounts SET held_micro = accounts.held_micro - charge.released_micro, balance_micro = accounts.balance_micro - charge.charged
      FROM charge WHERE accounts.id = charge.id RETURNING accounts.balance_micro, charge.charged
    ), entry AS (
      INSERT INTO ledger_entries (account_id, amount_micro, balance_after_micro, kind, idempotency_key, reference, created_at)
      SELECT ${accountId}, -charged, balance_micro, 'inference', ${`usage:${usage.requestId}`},
             ${`${usage.provider}/${usage.model}`}, ${usage.at}
      FROM moved WHERE charged > 0
    )${keySpend}${spend}${counted}, usage_source AS (
      SELECT t.*, charged FROM ${usageRecords(q, [usageRecord(usage, costMicro)])} CROSS JOIN moved
    ), ${q.unsafe(usageWrites('usage_source'))}
    SELECT charged, EXISTS (SELECT 1 FROM usage_row) AS stored FROM moved
    UNION ALL SELECT charged_micro, true FROM prior`;
}

/**
 * Settlements of one account, as one statement (so atomic, and one execution of the plan for the
 * whole group: PostgreSQL spent more initialising the plan of a settlement than running it).
 * Each is charged exactly as it would be alone, in the group's order: the charge is what the
 * balance allows beside the other holds once the settlements before it were charged and its own
 * hold released (a recursive step per settlement). Then, for the whole group, the account is
 * written once, each charge gets its ledger entry (with the balance after it), the keys' and the
 * users' spends, the rate counters and the rollups get sums, and each request its usage row.
 * The hold of a settlement may be gone already (its instance was taken for dead and its holds
 * released): it releases nothing.
 *
 * Idempotent: a settlement whose usage row is there already (a group retried after its reply was
 * lost) moves nothing and answers its stored charge. `stored` is false when another settlement of
 * the request committed while this one ran (its row came after this statement's snapshot). The
 * request ids must be distinct: the same request twice is two statements (the second finds the
 * first's row). An account that is not there answers no row.
 */
export function settleGroupStatement(q: Query, accountId: number, settlements: readonly Settlement[]) {
  const records = settlements.map(({ costMicro, usage, windows, tokens }, ord) => ({
    ...usageRecord(usage, costMicro),
    ord,
    key_window: windows?.key ?? null,
    user_window: windows?.user ?? null,
    token_key: tokens && tokens.tokens > 0 ? tokens.key : null,
    token_window: tokens && tokens.tokens > 0 ? tokens.windowStart : null,
    tokens: tokens && tokens.tokens > 0 ? tokens.tokens : 0,
  }));
  // As alone: a write none of the group can touch is left out.
  const keySpend = settlements.some(({ usage, windows }) => usage.keyId !== null && windows?.key !== undefined)
    ? q`, key_spend AS (
        -- A key's spend in the window its hold counted in (not a newer one: see Store.metering).
        UPDATE api_keys SET budget_spent_micro = budget_spent_micro + s.charged
        FROM (SELECT key_id, key_window, SUM(charged) AS charged FROM settled WHERE charged > 0 GROUP BY 1, 2) s
        WHERE api_keys.key_id = s.key_id AND api_keys.budget_window_start = s.key_window
      )`
    : q``;
  const spend = settlements.some(({ usage }) => usage.address !== null)
    ? q`, spend AS (
        -- One update of each user's row (a statement may not update a row twice): their spend, and
        -- their budget's spend in the window their hold counted in (not a newer one). Spend in the
        -- request's own mode: a sandbox user's play money never counts against the live user of the
        -- same address.
        UPDATE app_users u SET spent_micro = u.spent_micro + s.charged,
          budget_spent_micro = u.budget_spent_micro + (
            SELECT COALESCE(SUM(c.charged), 0) FROM settled c
            WHERE c.app_uuid = u.app_uuid AND c.livemode = u.livemode AND c.address = u.address AND c.user_window = u.budget_window_start
          )
        FROM (SELECT app_uuid, livemode, address, SUM(charged) AS charged FROM settled WHERE charged > 0 GROUP BY 1, 2, 3) s
        WHERE u.app_uuid = s.app_uuid AND u.livemode = s.livemode AND u.address = s.address
      )`
    : q``;
  return q<Settled[]>`
    WITH RECURSIVE items AS (
      SELECT * FROM ${usageRecords(q, records, 'ord int, key_window text, user_window text, token_key text, token_window bigint, tokens bigint')}
    ), prior AS (
      -- Looked up by request, an index scan each (LIMIT keeps the planner from making it a join: it takes
      -- the JSON for a hundred rows, and would scan usage_events whole).
      SELECT i.request_id, u.charged_micro FROM items i
      CROSS JOIN LATERAL (SELECT charged_micro FROM usage_events WHERE request_id = i.request_id LIMIT 1) u
    ), released AS (
      DELETE FROM holds WHERE id IN (
        SELECT (SELECT h.id FROM holds h WHERE h.request_id = i.request_id AND h.account_id = ${accountId} LIMIT 1)
        FROM items i WHERE NOT EXISTS (SELECT 1 FROM prior p WHERE p.request_id = i.request_id)
      ) RETURNING request_id, amount_micro
    ), account AS (
      SELECT id, balance_micro, held_micro FROM accounts WHERE id = ${accountId} FOR UPDATE
    ), todo AS (
      SELECT i.*, COALESCE(r.amount_micro, 0)::bigint AS released_micro, (row_number() OVER (ORDER BY i.ord))::int AS step
      FROM items i LEFT JOIN released r ON r.request_id = i.request_id
      WHERE NOT EXISTS (SELECT 1 FROM prior p WHERE p.request_id = i.request_id)
    ), charges AS (
      -- From a start of nothing, one step a settlement: spent and freed are what the settlements up to
      -- this one charged and released.
      SELECT 0 AS step, 0::bigint AS charged, 0::bigint AS spent, 0::bigint AS freed
      UNION ALL
      SELECT t.step, c.charged, p.spent + c.charged, p.freed + t.released_micro
      FROM charges p JOIN todo t ON t.step = p.step + 1 CROSS JOIN account a
      CROSS JOIN LATERAL (
        SELECT LEAST(t.cost_micro, GREATEST(0, a.balance_micro - p.spent - (a.held_micro - p.freed - t.released_micro)))::bigint AS charged
      ) c
    ), settled AS (
      SELECT t.*, c.charged, c.spent FROM charges c JOIN todo t ON t.step = c.step
    ), moved AS (
      -- Increments on the row written, not values read (as a hold's): a charge past the row is refused by its checks.
      UPDATE accounts SET held_micro = accounts.held_micro - (SELECT COALESCE(SUM(released_micro), 0) FROM todo),
        balance_micro = accounts.balance_micro - (SELECT COALESCE(SUM(charged), 0) FROM charges)
      WHERE accounts.id = (SELECT id FROM account) AND EXISTS (SELECT 1 FROM settled)
      RETURNING accounts.balance_micro, (SELECT COALESCE(SUM(charged), 0) FROM charges)::bigint AS total
    ), entry AS (
      INSERT INTO ledger_entries (account_id, amount_micro, balance_after_micro, kind, idempotency_key, reference, created_at)
      SELECT ${accountId}, -c.charged, m.balance_micro + m.total - c.spent, 'inference', 'usage:' || c.request_id, c.provider || '/' || c.model, c.created_at
      FROM settled c CROSS JOIN moved m WHERE c.charged > 0 ORDER BY c.step
    )${keySpend}${spend}, counted_tokens AS (
      -- The callers' tokens count in their rate windows once the account is written (locks in the order every
      -- settlement takes them; the counters in key order, as the rollups).
      INSERT INTO rate_counters (key, window_start, total)
      SELECT token_key, token_window, SUM(tokens) FROM settled WHERE token_key IS NOT NULL AND EXISTS (SELECT 1 FROM moved) GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
    ), ${q.unsafe(usageWrites('settled'))}
    SELECT c.ord, c.charged, EXISTS (SELECT 1 FROM usage_row u WHERE u.request_id = c.request_id) AS stored FROM settled c
    UNION ALL SELECT i.ord, p.charged_micro, true FROM items i JOIN prior p ON p.request_id = i.request_id`;
}
