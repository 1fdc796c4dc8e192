import type { KeyRole } from '../../src/contract/operation.js';

/**
 * The store: every read and every atomic change the services need, as async domain operations.
 * The SQLite implementation lives in `sqlite/`; a PostgreSQL one can implement the same
 * interface for multi-instance deployments. No SQL exists outside `server/store/`.
 */

export interface Page {
  limit: number;
  offset: number;
}

export interface PageOf<T> {
  items: T[];
  total: number;
}

export type AppType = 'standard' | 'pooled_api';

/**
 * Where a mode-bearing object lives: its app, and live or test mode (Stripe's livemode). Every
 * object a key or a user can reach (responses, text registrations, app users, billing lines,
 * subscriptions) is stored with its mode and read and written with the caller's as part of its
 * key, so test mode never sees a live object, nor live mode a test one: to the other mode it does
 * not exist.
 */
export interface AppScope {
  appUuid: string;
  livemode: boolean;
}

export interface DeveloperRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface AppRecord {
  appUuid: string;
  developerId: string;
  name: string;
  appType: AppType;
  defaultUserCreditsMicro: number;
  allowedOrigins: string[];
  idpAppId: string | null;
  idpVerificationKey: string | null;
  idpUpdatedAt: string | null;
  /** Per-app overrides of the server's rate limits (null: the server default). */
  rateLimitRpm: number | null;
  rateLimitTpm: number | null;
  /** Whether the app pays its users' daily claims and task rewards (the app is their sponsor). */
  userClaims: boolean;
  /** The budget each end user gets unless their own overrides it (null: none). */
  userBudget: BudgetLimit | null;
  balanceMicro: number;
  heldMicro: number;
  createdAt: string;
  updatedAt: string;
}

/** A spending budget: at most `limitMicro` per `period` (server/services/budgets.ts). */
export interface BudgetLimit {
  limitMicro: number;
  period: string;
}

export interface ApiKeyRecord {
  keyId: string;
  appUuid: string;
  name: string;
  isTest: boolean;
  role: KeyRole;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** What the key may spend per window, and what it has settled in the window it last spent in. */
  budget: KeyBudget | null;
  /** RFC 3339; from this instant on the key is refused. */
  expiresAt: string | null;
}

export interface KeyBudget {
  limitMicro: number;
  /** `day`, `week`, `month` or a duration (`7d`): see server/services/budgets.ts. */
  period: string;
  windowStart: string | null;
  spentMicro: number;
}

/** What a key update changes: an omitted field is kept, null removes it. */
export interface ApiKeyPatch {
  budget?: { limitMicro: number; period: string } | null;
  expiresAt?: string | null;
}

/** A user of an app in one mode: a sandbox user and a live user of the same address are two users. */
export interface AppUserRecord {
  appUuid: string;
  address: string;
  livemode: boolean;
  balanceMicro: number;
  heldMicro: number;
  creditLimitMicro: number | null;
  spentMicro: number;
  /** The user's own budget, overriding the app's default (null: the app's applies, if any). */
  budget: BudgetLimit | null;
  /** The start of the window the user last spent in (null: never), and what was settled in it. */
  budgetWindow: { windowStart: string | null; spentMicro: number };
  createdAt: string;
}

/** What a user update changes: an omitted field is kept, null removes it. */
export interface AppUserPatch {
  creditLimitMicro?: number | null;
  budget?: BudgetLimit | null;
}

/** What an API key resolves to: the key, its app and the developer who owns the app. */
export interface KeyOwner {
  key: ApiKeyRecord;
  app: AppRecord;
}

export interface NewApp {
  appUuid: string;
  developerId: string;
  name: string;
  appType: AppType;
  defaultUserCreditsMicro: number;
  allowedOrigins: string[];
  rateLimitRpm?: number | null;
  rateLimitTpm?: number | null;
  userClaims?: boolean;
  userBudget?: BudgetLimit | null;
  at: string;
}

export interface AppPatch {
  name?: string;
  defaultUserCreditsMicro?: number;
  allowedOrigins?: string[];
  /** null clears the override. */
  rateLimitRpm?: number | null;
  rateLimitTpm?: number | null;
  userClaims?: boolean;
  /** null removes the default; a changed default starts a fresh window for the users it applies to. */
  userBudget?: BudgetLimit | null;
}

/**
 * Where a deleted app's credits go: another live app of the same developer (live to live, test to
 * test), or back to the operator (live credits to the promotions account; test credits, play
 * money, are written off).
 */
export type BalanceDestination = { appUuid: string } | { operator: true };

/** What deleting an app did, or why it did not. Amounts in micro-credits. */
export type AppDeletion =
  | { outcome: 'deleted'; movedMicro: number; movedTestMicro: number }
  | { outcome: 'not_found' }
  /** `moveTo` names an app that is not one of the developer's live apps (or is this app). */
  | { outcome: 'destination_not_found' }
  /** Kept: it holds credits and no destination was given, or requests in flight hold some. */
  | { outcome: 'holds_credits'; balanceMicro: number; testBalanceMicro: number; heldMicro: number };

export interface NewApiKey {
  keyId: string;
  appUuid: string;
  name: string;
  isTest: boolean;
  role: KeyRole;
  prefix: string;
  secretHash: string;
  budget?: { limitMicro: number; period: string } | null;
  expiresAt?: string | null;
  at: string;
}

/** A movement of credits, written to the ledger in the same transaction as the balance. */
export interface Grant {
  amountMicro: number;
  kind: string;
  /** Unique per granting event: the same key never grants twice. */
  idempotencyKey: string;
  reference?: string;
  at: string;
}

export class InsufficientFundsError extends Error {
  constructor(
    readonly availableMicro: number,
    readonly neededMicro: number,
  ) {
    super('insufficient funds');
  }
}

/** The database cannot be reached now (a network or server outage): worth retrying, not a bug. */
export class StoreUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`the database is unavailable: ${reason}`);
  }
}

/** A move that would take a balance past 2^53 micro-credits, beyond exact integer arithmetic. */
export class BalanceLimitError extends Error {
  constructor(readonly accountId: number) {
    super(`account ${accountId} would pass the largest balance kept exactly (2^53 micro-credits)`);
  }
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

export type HoldResult =
  | { ok: true; budgets?: HeldBudgets }
  | { ok: false; availableMicro: number }
  | { ok: false; budgetExceeded: BudgetStanding & { kind: BudgetKind } }
  | { ok: false; userLimit: { spentMicro: number; pendingMicro: number; limitMicro: number } };

export interface UsageEvent {
  requestId: string;
  appUuid: string;
  keyId: string | null;
  address: string | null;
  provider: string;
  model: string;
  operation: string;
  /** The mode of the key or user that made the request: reports show each mode only its own usage. */
  livemode: boolean;
  /** All input, the cache's parts included (each part below is inside it). */
  inputTokens: number;
  outputTokens: number;
  /** Of the input: read from the provider's prompt cache, written to it for five minutes, for an hour. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  /** Of the output: spent on reasoning. */
  reasoningTokens?: number;
  /** The route targets tried before the one that answered (routes, #25); stored as JSON. */
  attempts?: UsageAttempt[];
  costMicro: number;
  latencyMs: number;
  ttftMs: number | null;
  /** `refused`: turned away before the upstream call (402 credits, 403, 429), with its error code. */
  status: 'ok' | 'error' | 'canceled' | 'refused';
  errorCode: string | null;
  at: string;
}

/** A route target that failed before another answered. */
export interface UsageAttempt {
  model: string;
  errorClass: string;
  latencyMs: number;
}

/** One target's circuit breaker as stored (times in epoch milliseconds of the injected clock). */
export interface BreakerRecord {
  state: 'closed' | 'open' | 'half_open';
  /** Failures counted in the window that began at `windowStartMs`. */
  failures: number;
  windowStartMs: number;
  /** When it last opened (the cooldown runs from here), or when its half-open probe was sent. */
  sinceMs: number;
}

/**
 * Circuit breakers by target (`<provider>/<model>`). `read` is the hot path (one lookup, no
 * write); `update` is an atomic read-modify-write of one target's record, so two instances that
 * both see a cooldown end let exactly one probe through.
 */
export interface BreakerStore {
  read(target: string): Promise<BreakerRecord | null>;
  /** Applies `change` to the current record (null when none) atomically; `change` returns the new record, or null to leave it. */
  update(target: string, change: (current: BreakerRecord | null) => BreakerRecord | null): Promise<BreakerRecord | null>;
}

export interface UsageTotals {
  /** Every request, refused ones included. */
  requests: number;
  /** Refused before reaching the upstream (402, 403, 429). */
  refused: number;
  inputTokens: number;
  outputTokens: number;
  /** Of the input: read from the prompt cache, and written to it (five minutes and an hour together). */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of the output: spent on reasoning. */
  reasoningTokens: number;
  /** What was charged (less than the cost only when a balance ran out). */
  chargedMicro: number;
}

/** Which usage rows a report covers: an app (optionally one user of it), between two times. */
export interface UsageFilter {
  appUuid: string;
  /** The caller's mode: a report covers that mode's usage only. */
  livemode: boolean;
  address?: string | null;
  /** Inclusive, RFC 3339. */
  start: string;
  /** Inclusive too: a report that ends now includes what happened this millisecond. */
  end: string;
}

/** Who a response belongs to: the caller (its app, its user or null for the app's keys) in its mode. */
export interface ResponseOwner extends AppScope {
  address: string | null;
}

/** A response of the Responses API, as stored for `GET /responses/{id}`. */
export interface StoredResponse extends ResponseOwner {
  id: string;
  status: string;
  body: Record<string, unknown>;
  /** The input items it answered, previous turns included. */
  input: Record<string, unknown>[];
  /** Its id at an upstream with its own Responses API, or null. */
  upstreamId: string | null;
  createdAt: string;
  expiresAt: string;
}

/** One event of a background response's stream, as it was sent (`data` is the JSON text). */
export interface StoredResponseEvent {
  sequenceNumber: number;
  event: string;
  data: string;
}

/** One of the server's own signing key pairs (JWKS), as JSON Web Keys. */
export interface SigningKeyRecord {
  kid: string;
  algorithm: string;
  publicJwk: Record<string, unknown>;
  privateJwk: Record<string, unknown>;
  createdAt: string;
}

export type TextChannel = 'sms' | 'messenger';

/**
 * An identifier registered on a text channel. `owner` is the caller within the app and mode: `app`
 * for the app itself (any of its API keys of that mode), `user:<address>` for an end user of the
 * app. Test and live registrations of one identifier are two objects.
 */
export interface TextRegistrationRecord extends AppScope {
  channel: TextChannel;
  identifier: string;
  owner: string;
  preferredModel: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Counters in fixed one-minute windows, for rate limits. */
export interface RateCounter {
  /** Adds `amount` to the counter of `key` in the window starting at `windowStart`; returns the new total. */
  add(key: string, windowStart: number, amount: number): Promise<number>;
  get(key: string, windowStart: number): Promise<number>;
  /** `add` on `key` and `get` of `readKey` in one step (one round trip where the counters are shared). */
  addAndGet(key: string, readKey: string, windowStart: number, amount: number): Promise<{ added: number; read: number }>;
}

export interface CheckoutSessionRecord {
  id: string;
  kind: 'credit_pack' | 'app_funding' | 'subscription';
  developerId: string;
  appUuid: string;
  /** The user who pays (and is credited); null when the app is. */
  address: string | null;
  creditsMicro: number;
  amountUsdCents: number;
  description: string;
  status: 'open' | 'complete' | 'expired';
  successUrl: string | null;
  cancelUrl: string | null;
  referral: string | null;
  createdAt: string;
  paidAt: string | null;
  expiresAt: string;
  /** The plan a subscription checkout sells; null for credits. */
  priceId: string | null;
  /** False for test mode (a test key or a sandbox user): it pays play money into a test balance. */
  livemode: boolean;
}

export type Tier = 'starter' | 'pro';
export type BillingInterval = 'month' | 'year';

/** A processor subscription as this server knows it. `address` is '' when the app subscribes. */
export interface SubscriptionRecord {
  id: string;
  developerId: string;
  appUuid: string;
  address: string;
  customerId: string | null;
  tier: Tier;
  interval: BillingInterval;
  status: 'active' | 'canceled';
  currentPeriodStart: string;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  scheduledDowngrade: { tier: Tier; interval: BillingInterval } | null;
  /** Seconds: the time of the newest processor state applied. */
  stateVersion: number;
  createdAt: string;
  updatedAt: string;
  /** False for a test-mode subscription (a sandbox user's): its credits are play money. */
  livemode: boolean;
}

/** The ledger kind of an upgrade's credits: each one granted with its paid charge (`checkout.recordPaidUpgrade`). */
export const UPGRADE_GRANT = 'subscription_upgrade';

/** A subscription's charge after its checkout (a renewal or an upgrade). */
export interface SubscriptionInvoiceRecord {
  id: string;
  subscriptionId: string;
  developerId: string;
  amountUsdCents: number;
  creditsMicro: number;
  description: string;
  paidAt: string;
}

/** A line of the billing history: a checkout session or a subscription invoice. */
export interface BillingLine {
  id: string;
  kind: CheckoutSessionRecord['kind'];
  description: string;
  amountUsdCents: number;
  creditsMicro: number;
  status: CheckoutSessionRecord['status'];
  createdAt: string;
  paidAt: string | null;
}

/** Raw figures of the live ledger, for the conservation check (server/services/conservation.ts). */
export interface LedgerAudit {
  mismatches: { accountId: number; balanceMicro: number; ledgerMicro: number }[];
  /** Sum of live entries per kind; `legacy` for entries written before sources were required. */
  byKind: { kind: string; legacy: boolean; totalMicro: bigint }[];
  liveBalanceMicro: bigint;
  /** Requests whose cost was more than the balance could pay. */
  shortfalls: { requestId: string; appUuid: string; address: string | null; costMicro: number; chargedMicro: number; at: string }[];
}

export interface Store {
  readonly developers: {
    create(developer: DeveloperRecord): Promise<DeveloperRecord>;
    count(): Promise<number>;
    /** Every developer account with how many live apps it has, oldest first. */
    list(): Promise<(DeveloperRecord & { apps: number })[]>;
  };
  readonly apps: {
    /** Creates the app; with `grant`, credits its balance in the same transaction. */
    create(app: NewApp, grant?: Grant): Promise<AppRecord>;
    list(developerId: string, page: Page): Promise<PageOf<AppRecord>>;
    /** An app of this developer, or null (also for deleted apps and other developers' apps). */
    get(developerId: string, appUuid: string): Promise<AppRecord | null>;
    /** A live app whoever owns it (for the operator), or null. */
    byId(appUuid: string): Promise<AppRecord | null>;
    update(developerId: string, appUuid: string, patch: AppPatch, at: string): Promise<AppRecord | null>;
    /**
     * Deletes the app in one transaction with what becomes of its credits. An app holding credits
     * (live or test balance) is deleted only with `moveTo`: both balances move there, each with a
     * ledger entry on either side. Credits held by requests in flight always keep the app.
     */
    delete(developerId: string, appUuid: string, at: string, moveTo?: BalanceDestination): Promise<AppDeletion>;
    /** Sets or clears the identity-provider configuration; 'taken' when another app of the same developer holds the id. */
    setIdp(
      appUuid: string,
      idp: { idpAppId: string; verificationKey: string } | null,
      at: string,
    ): Promise<AppRecord | 'taken'>;
    /**
     * The live apps whose identity-provider app id is this (an identity token's audience): at most
     * one per developer, so usually one; in the order they took the id, earliest first (an app
     * keeps its place while it keeps the id, whatever key it sets).
     */
    findByIdpAppId(idpAppId: string): Promise<AppRecord[]>;
  };
  readonly apiKeys: {
    create(key: NewApiKey): Promise<ApiKeyRecord>;
    list(appUuid: string, page: Page): Promise<PageOf<ApiKeyRecord>>;
    delete(appUuid: string, keyId: string, at: string): Promise<boolean>;
    /** A live (not deleted) key of the app, or null. */
    get(appUuid: string, keyId: string): Promise<ApiKeyRecord | null>;
    /** Changes a key's budget or expiry; a changed budget starts a fresh window. Null when there is no such key. */
    update(appUuid: string, keyId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
    /** The live keys with this public prefix (usually one), with their apps and secret hashes. */
    findByPrefix(prefix: string): Promise<(KeyOwner & { secretHash: string })[]>;
    /** Records use; writes only when the last recorded use is older than `staleBefore`. */
    touch(keyId: string, at: string, staleBefore: string): Promise<void>;
  };
  /** Users of an app, each in one mode: a scope's reads and writes never reach the other mode's users. */
  readonly users: {
    list(scope: AppScope, page: Page): Promise<PageOf<AppUserRecord>>;
    get(scope: AppScope, address: string): Promise<AppUserRecord | null>;
    /**
     * Returns the user, creating it when unknown. A new live user of a standard app receives the
     * app's default credits, moved from the app's balance; of a pooled app, that amount as its
     * credit limit. Throws InsufficientFundsError when the app cannot cover the grant. A new test
     * user (a sandbox user) gets that amount as play money instead: no live money moves.
     */
    ensure(scope: AppScope, address: string, at: string): Promise<AppUserRecord>;
    /** Moves credits from the app's balance of the scope's mode to the user's (creating the user when unknown). */
    topUp(scope: AppScope, address: string, amountMicro: number, at: string): Promise<AppUserRecord>;
    /**
     * Changes a user's credit limit and own budget (creating the user when unknown): an omitted
     * field is kept, null removes it. A changed budget starts a fresh window.
     */
    update(scope: AppScope, address: string, patch: AppUserPatch, at: string): Promise<AppUserRecord>;
  };
  readonly metering: {
    /**
     * Reserves `amountMicro` of the payer's available balance (balance minus what is held) for
     * request `requestId`, in one atomic step however many instances hold at once. With
     * `capUser`, the payer is a pooled app spending for that user: the user's settled spend,
     * their holds and this one must also stay within the user's credit limit (when they have one).
     * With `budgets`, each budget that applies (the key's, the user's own or their app's default):
     * the spend in its current window (rolled first when the window has ended), its holds on any
     * instance and this one must stay within it, in the same atomic step.
     * Says which check failed, with its figures; nothing is held then.
     */
    hold(payer: Payer, amountMicro: number, requestId: string, capUser?: string, budgets?: BudgetChecks): Promise<HoldResult>;
    /**
     * Releases the hold of request `usage.requestId` and charges the real cost in one
     * transaction, with its ledger entry and usage row. The charge never exceeds what the payer has.
     * With `windows` (those the hold counted in), the charge is added to the key's and the user's
     * spend in that window; a window that has rolled meanwhile is not charged for the old one's requests.
     */
    settle(payer: Payer, heldMicro: number, costMicro: number, usage: UsageEvent, windows?: BudgetWindows): Promise<{ chargedMicro: number }>;
    /** What requests in flight hold against key `keyId`'s budget. */
    keyHeld(keyId: string): Promise<number>;
    /** Balance and held amount of a payer, in micro-credits. */
    balance(payer: Payer): Promise<{ balanceMicro: number; heldMicro: number }>;
  };
  readonly usage: {
    /** Writes a usage row that moves no money (a refused request). */
    record(event: UsageEvent): Promise<void>;
    byModel(filter: UsageFilter): Promise<(UsageTotals & { provider: string; model: string })[]>;
    /** Totals per bucket; `bucket` is the first 10 (day) or 13 (hour) characters of the time. */
    byBucket(filter: UsageFilter, granularity: 'day' | 'hour'): Promise<(UsageTotals & { bucket: string })[]>;
    /** Totals per user, most credits first; requests made with API keys count as address null. */
    byUser(filter: UsageFilter, page: Page): Promise<PageOf<UsageTotals & { address: string | null }>>;
  };
  readonly responses: {
    put(response: StoredResponse): Promise<void>;
    /** The caller's response (same app, user and mode), unless it has expired. */
    get(owner: ResponseOwner, id: string, now: string): Promise<StoredResponse | null>;
    /** Moves a response on, but only from one of `from` (so a cancel and a finish cannot both win). */
    transition(id: string, from: string[], status: string, body: Record<string, unknown>, upstreamId?: string | null): Promise<boolean>;
    /** An item (of the output or the input) of one of the caller's kept responses, by its id; newest first. */
    findItem(owner: ResponseOwner, itemId: string, now: string): Promise<Record<string, unknown> | null>;
    /** Marks responses left queued or running by a previous process as failed; returns how many. */
    failInterrupted(body: (previous: Record<string, unknown>) => Record<string, unknown>): Promise<number>;
    /** Deletes expired responses and their events. */
    deleteExpired(now: string): Promise<number>;
    /** Deletes the caller's response (same app, user and mode) and its events; false when there is none. */
    delete(owner: ResponseOwner, id: string): Promise<boolean>;
    /** Adds one event to a background response's stream. */
    appendEvent(responseId: string, event: StoredResponseEvent): Promise<void>;
    /** The events of a response's stream after `sequenceNumber`, in order (ownership is checked by get). */
    eventsAfter(responseId: string, sequenceNumber: number): Promise<StoredResponseEvent[]>;
  };
  readonly signingKeys: {
    /** Every key pair, oldest first. */
    list(): Promise<SigningKeyRecord[]>;
    create(key: SigningKeyRecord): Promise<void>;
  };
  readonly text: {
    /** Whoever in this app and mode holds the identifier on the channel, or null. */
    byIdentifier(channel: TextChannel, scope: AppScope, identifier: string): Promise<TextRegistrationRecord | null>;
    /** The caller's registration on the channel, or null. */
    byOwner(channel: TextChannel, scope: AppScope, owner: string): Promise<TextRegistrationRecord | null>;
    /**
     * Registers the identifier for the caller, replacing the caller's previous registration on
     * the channel; 'taken' when another caller of the same app and mode holds it. A deleted app's
     * registrations free their identifiers.
     */
    register(
      registration: Omit<TextRegistrationRecord, 'createdAt' | 'updatedAt'>,
      at: string,
    ): Promise<TextRegistrationRecord | 'taken'>;
    /** Removes the caller's registration on the channel; returns it, or null when there was none. */
    unregister(channel: TextChannel, scope: AppScope, owner: string): Promise<TextRegistrationRecord | null>;
  };
  /**
   * Work that must run on one instance at a time. `leads(task)` says whether this instance runs a
   * recurring task now (the billing clock); `exclusively(task, work)` runs work that no other
   * instance may run meanwhile (creating the owner of an empty database). For SQLite (one
   * process) this instance always leads; PostgreSQL uses a lease and an advisory lock.
   */
  readonly coordination: {
    leads(task: string): Promise<boolean>;
    exclusively<T>(task: string, work: () => Promise<T>): Promise<T>;
  };
  /** Rate-limit counters; in-process for SQLite, a shared one for a multi-instance backend. */
  readonly rateCounters: RateCounter;
  /** Circuit breakers of route targets; in-process for SQLite, shared by every instance on PostgreSQL. */
  readonly breakers: BreakerStore;
  readonly credits: {
    /**
     * Credits the account in one transaction with its ledger entry. `granted: false` (and nothing
     * moved) when this idempotency key has already credited this account.
     */
    grant(payer: Payer, grant: Grant): Promise<{ granted: boolean; balanceMicro: number }>;
    /** Which of these idempotency keys have already moved this account. */
    used(payer: Payer, keys: string[]): Promise<Set<string>>;
    /** The largest numeric `reference` of this kind of entry on the account (0 when none). */
    highestReference(payer: Payer, kind: string): Promise<number>;
    /**
     * Moves credits from a sponsor to an account in one transaction (two entries, one idempotency
     * key). `granted: false` (nothing moved) when the key already credited `to`; throws
     * InsufficientFundsError when the sponsor cannot pay.
     */
    transfer(from: Payer, to: Payer, grant: Grant): Promise<{ granted: boolean; balanceMicro: number }>;
    /** Accounts whose balance differs from the sum of their ledger entries (none, when sound). */
    check(): Promise<{ accountId: number; balanceMicro: number; ledgerMicro: number }[]>;
    /** What the conservation check reads: live money by ledger kind, the live total, and shortfalls. */
    audit(): Promise<LedgerAudit>;
  };
  readonly checkout: {
    create(session: CheckoutSessionRecord): Promise<void>;
    get(id: string): Promise<CheckoutSessionRecord | null>;
    /**
     * Marks an open session paid and credits its account, in one transaction; 'already' when it
     * was paid before (nothing moves), 'not_open' when it expired.
     */
    complete(id: string, at: string): Promise<'completed' | 'already' | 'not_open' | 'unknown'>;
    expire(id: string): Promise<boolean>;
    /** The developer's checkout sessions and subscription invoices of one mode, newest first. */
    listForDeveloper(developerId: string, livemode: boolean, page: Page): Promise<PageOf<BillingLine>>;
    /**
     * Records a paid upgrade's charge in the billing history and grants the credits it paid for
     * (`invoice.creditsMicro`, kind UPGRADE_GRANT, keyed by the invoice) in one transaction: no
     * upgrade grant exists without its charge. Also when the processor's report of the invoice
     * recorded it first, without credits. False (nothing moved) when this invoice granted before.
     */
    recordPaidUpgrade(invoice: SubscriptionInvoiceRecord, payer: Payer): Promise<boolean>;
    /**
     * Live upgrade grants with no paid charge of the same credits behind them (none, when sound),
     * for the conservation check; grants from before charges were recorded with them are not looked at.
     */
    upgradeGrantsWithoutCharge(): Promise<{ entryId: number; amountMicro: number; reference: string | null }[]>;
    eventSeen(id: string): Promise<boolean>;
    /** Records a processor event; false when it was seen before. */
    recordEvent(id: string, type: string, at: string): Promise<boolean>;
  };
  readonly subscriptions: {
    get(id: string): Promise<SubscriptionRecord | null>;
    /** The active subscriptions of an app and of its users. */
    activeForApp(appUuid: string): Promise<SubscriptionRecord[]>;
    /** The subject's active subscription in the scope's mode, else its latest one there, else null. */
    current(scope: AppScope, address: string): Promise<SubscriptionRecord | null>;
    /**
     * Applies a processor state: creates the subscription, or updates it when `record.stateVersion`
     * is not older than what was applied. A canceled subscription stays canceled. Returns the
     * stored record and whether this state was applied; 'conflict' when the subject already has
     * another active subscription in the same mode.
     */
    apply(record: SubscriptionRecord): Promise<{ record: SubscriptionRecord; applied: boolean } | 'conflict'>;
    /** Sets or clears the downgrade planned for the period end (our own, not a processor state). */
    scheduleDowngrade(id: string, downgrade: SubscriptionRecord['scheduledDowngrade'], at: string): Promise<SubscriptionRecord | null>;
    /** Active subscriptions whose period ended at or before `now`, soonest first (then by id). */
    due(now: string, limit: number, offset?: number): Promise<SubscriptionRecord[]>;
    /** When the next active period ends, or null. */
    nextPeriodEnd(): Promise<string | null>;
    /** Records a charge; false when this invoice was recorded before. */
    recordInvoice(invoice: SubscriptionInvoiceRecord): Promise<boolean>;
    createPortalSession(session: { id: string; subscriptionId: string; returnUrl: string | null; expiresAt: string }): Promise<void>;
    /** The test card a sandbox customer gave its portal (the sandbox processor's own record), or null. */
    sandboxCard(customerId: string): Promise<string | null>;
    setSandboxCard(customerId: string, card: string): Promise<void>;
    portalSession(id: string): Promise<{ id: string; subscriptionId: string; returnUrl: string | null; expiresAt: string } | null>;
  };
  /** The schema version the database is at (its backend's own numbering). */
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}
