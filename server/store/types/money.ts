// Money as the store moves it: grants, who pays a request, and holds with the budgets they pass through. Amounts in micro-credits.

/** A movement of credits, written to the ledger in the same transaction as the balance. */
export interface Grant {
  amountMicro: number;
  kind: string;
  /** Unique per granting event: the same key never grants twice. */
  idempotencyKey: string;
  reference?: string;
  at: string;
}

/**
 * Whose balance a request draws on (ARCHITECTURE.md §5), or who pays a sponsored grant. `test` is the
 * payer's test balance: play money of test mode, apart from the live one. `promotions` is the
 * operator's account that pays developers' claims.
 */
export type Payer =
  | { kind: 'app'; appUuid: string; test?: boolean }
  | { kind: 'user'; appUuid: string; address: string; test?: boolean }
  | { kind: 'promotions' };

/**
 * The budgets a hold goes through: the calling key's and the end user's (each when there is one:
 * the store reads whether a budget applies in the same atomic step), and the window rule
 * (server/services/budgets.ts at the hold's moment) that says, from a budget's period and stored
 * window start, which window a spend now counts in (null when the stored period is not one).
 */
export interface BudgetChecks {
  keyId?: string;
  /** A live end user (app, address): their own budget, or else their app's default. */
  user?: { appUuid: string; address: string };
  windowAt(period: string, storedStart: string | null): { start: string; end: string; rolled: boolean } | null;
}

export type BudgetKind = 'key' | 'user';

/** A budget as a hold found it: spent in the window, held by requests in flight (this one included when held). */
export interface BudgetStanding {
  limitMicro: number;
  spentMicro: number;
  heldMicro: number;
  windowStart: string;
  resetsAt: string;
}

/** The budgets a hold went through, by kind. */
export type HeldBudgets = Partial<Record<BudgetKind, BudgetStanding>>;

/** The windows a settlement's charge counts in (those its hold counted in). */
export type BudgetWindows = Partial<Record<BudgetKind, string>>;

/**
 * A request counted against its caller's rate limits in the same step as its hold (one round trip
 * on a shared store): one more request on `requestKey`, and the tokens settled so far read from
 * `tokenKey`, both in the one-minute window starting at `windowStart`. Past the request limit, or
 * once the tokens have reached theirs, nothing is held (server/services/rate-limits.ts).
 */
export interface RateCount {
  windowStart: number;
  requestKey: string;
  requestLimit: number;
  tokenKey: string;
  tokenLimit: number;
}

/** Where a caller stood once its request was counted: requests counted (this one included) and tokens settled in the window. */
export interface RateStanding {
  requests: number;
  tokens: number;
}

/** Whether a request counted at `standing` may go on. */
export const rateAllows = (rate: RateCount, standing: RateStanding): boolean =>
  standing.requests <= rate.requestLimit && standing.tokens < rate.tokenLimit;

/** Tokens a settlement adds to its caller's counter, in the same step as its charge where the store can. */
export interface TokenCount {
  key: string;
  windowStart: number;
  tokens: number;
}

/** What a hold found; `rate` when it counted the request (`rateLimited`: past a limit, so nothing held). */
export type HoldResult = (
  | { ok: true; budgets?: HeldBudgets }
  | { ok: false; availableMicro: number }
  | { ok: false; budgetExceeded: BudgetStanding & { kind: BudgetKind } }
  | { ok: false; userLimit: { spentMicro: number; pendingMicro: number; limitMicro: number } }
  | { ok: false; rateLimited: true }
) & { rate?: RateStanding };
