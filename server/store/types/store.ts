import type { BillingLine, CheckoutSessionRecord, LedgerAudit, SubscriptionInvoiceRecord, SubscriptionRecord } from './billing.js';
import type { BudgetChecks, BudgetWindows, Grant, HoldResult, Payer, RateCount, TokenCount } from './money.js';
import type { ApiKeyPatch, ApiKeyRecord, AppDeletion, AppPatch, AppRecord, AppScope, AppUserPatch, AppUserRecord, BalanceDestination, DeveloperRecord, KeyOwner, NewApiKey, NewApp, Page, PageOf, SigningKeyRecord, TextChannel, TextRegistrationRecord } from './records.js';
import type { ResponseOwner, StoredResponse, StoredResponseEvent } from './responses.js';
import type { BreakerStore, RateCounter, UsageEvent, UsageFilter, UsageTotals } from './usage.js';

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
     * With `rate`, the request is first counted against its caller's rate limits in the same step
     * (see RateCount), and the result says where the caller stands.
     * Says which check failed, with its figures; nothing is held then.
     */
    hold(payer: Payer, amountMicro: number, requestId: string, capUser?: string, budgets?: BudgetChecks, rate?: RateCount): Promise<HoldResult>;
    /**
     * Releases the hold of request `usage.requestId` and charges the real cost in one
     * transaction, with its ledger entry and usage row. The charge never exceeds what the payer has.
     * With `windows` (those the hold counted in), the charge is added to the key's and the user's
     * spend in that window; a window that has rolled meanwhile is not charged for the old one's requests.
     * With `tokens`, they are added to the caller's rate counter in the same step. Idempotent: a
     * request whose usage row is written already moves nothing again and answers its stored charge.
     */
    settle(
      payer: Payer,
      heldMicro: number,
      costMicro: number,
      usage: UsageEvent,
      windows?: BudgetWindows,
      tokens?: TokenCount,
    ): Promise<{ chargedMicro: number }>;
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
    /**
     * Adds every usage row written so far to the rollups now. The store does so on its own a
     * moment after they are written (rollup-schedule.ts), and reports count rows either way.
     */
    rollUp(): Promise<void>;
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
    /** When the next active period ends after `after`, or null (one ended already waits on its processor). */
    nextPeriodEnd(after: string): Promise<string | null>;
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
