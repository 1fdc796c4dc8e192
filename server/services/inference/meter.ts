import type { Clock } from '../../clock.js';
import { ApiError, forbidden, insufficientCredits } from '../../errors.js';
import type { InputBound } from '../../providers/tokens.js';
import type { ModelEntry, TokenUsage } from '../../providers/types.js';
import { microToCredits } from '../../store/money.js';
import { rateAllows, type BudgetChecks, type BudgetWindows, type HoldResult, type RateStanding, type Store, type UsageAttempt, type UsageEvent } from '../../store/types.js';
import { budgetExceeded, budgetHeaders, userLimitReached, windowFor } from './budget-answers.js';
import type { InferenceObserver } from '../../metrics/inference-observer.js';
import type { Caller } from './caller.js';
import type { RateLimitService } from '../rate-limits.js';
import { affordableOutputTokens, assertServiceTierPriced, costMicro, mostCostMicro, type CacheWrites } from './pricing.js';
import type { CancelSignal } from '../../cancellation.js';

/** The usage row's error code for a failure. */
export const errorCode = (error: unknown) => (error instanceof ApiError ? error.code : 'upstream_error');

/** The usage row's code for a request whose client hung up: not the upstream's fault. */
export const CLIENT_CLOSED = 'client_closed';

export interface MeterOptions {
  store: Store;
  clock: Clock;
  /** Tokens per minute are checked before the hold and counted at settlement. */
  limiter?: RateLimitService;
  /** Told of every usage row and of holds taken and settled (metrics). */
  observer?: InferenceObserver;
}

/**
 * One metered request: holds the most it can cost before the upstream call, and settles the real
 * cost (ledger entry and usage row, in one transaction) exactly once afterwards.
 */
export async function openMeter(
  deps: MeterOptions,
  request: {
    caller: Caller;
    entry: ModelEntry;
    operation: string;
    requestId: string;
    /** The input's bound: the cheap one is held first, the exact one only if that hold is refused. */
    input: InputBound;
    maxOutputTokens: number;
    /** The cache writes the request may cause (its input may be billed at a write's price). */
    cacheWrites?: CacheWrites;
    /** The `service_tier` the request asks for (flex and priority are priced apart). */
    serviceTier?: string | null;
    /** The most web searches the request may run (each billed at the model's web-search price). */
    webSearches?: number;
    /**
     * Searches an answered request has made whatever its usage says: OpenAI's search models search
     * once a chat completion and count it nowhere. Charged with the answer.
     */
    webSearchesMade?: number;
    /**
     * The other targets a route or a `models` list may send the request to, each with its own
     * input bound and output budget: the hold covers the dearest of them all.
     */
    alternatives?: Target[];
  },
) {
  const { caller } = request;
  // The target that answers, once known (`serve`): the usage row names it and its prices charge.
  let entry = request.entry;
  let attempts: UsageAttempt[] = [];
  const targets: Target[] = [{ entry, input: request.input, maxOutputTokens: request.maxOutputTokens }, ...(request.alternatives ?? [])];
  const started = deps.clock.now().getTime();
  let firstTokenAt: number | null = null;
  const eventOf = (usage: TokenUsage, status: UsageEvent['status'], errorCode: string | null): UsageEvent => {
    const now = deps.clock.now();
    return {
      requestId: request.requestId,
      appUuid: caller.appUuid,
      keyId: caller.keyId,
      address: caller.address,
      provider: entry.provider,
      model: entry.model,
      operation: request.operation,
      livemode: !caller.isTest,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      cacheWrite1hTokens: usage.cacheWrite1hTokens,
      reasoningTokens: usage.reasoningTokens,
      ...(attempts.length > 0 ? { attempts } : {}),
      costMicro: caller.isTest ? 0 : costMicro(entry, usage, request.serviceTier),
      latencyMs: now.getTime() - started,
      ttftMs: firstTokenAt === null ? null : firstTokenAt - started,
      status,
      errorCode,
      at: now.toISOString(),
    };
  };
  /** A request turned away before the upstream still leaves its usage row, with why. */
  const refuse = async (error: ApiError): Promise<never> => {
    const event = eventOf({ inputTokens: 0, outputTokens: 0 }, 'refused', error.code);
    await deps.store.usage.record(event);
    deps.observer?.usageRecorded(event, 0);
    throw error;
  };

  const live = targets.find((target) => target.entry.provider !== 'local')?.entry;
  if (caller.isTest && live) {
    await refuse(
      forbidden(
        `Test keys (svc_test_…) and sandbox identity tokens reach only the offline local provider; '${live.id}' needs a live key.`,
        'test_key_not_allowed',
      ),
    );
  }
  try {
    for (const target of targets) assertServiceTierPriced(target.entry, request.serviceTier);
    // A request the pipeline left to its hold to count has its tokens checked there, in the same step.
    if (!caller.rateCount) await deps.limiter?.checkTokens(caller.rateSubject, caller.app);
  } catch (error) {
    if (error instanceof ApiError) await refuse(error);
    throw error;
  }
  const bound = { cacheWrites: request.cacheWrites, serviceTier: request.serviceTier, webSearchCalls: request.webSearches };
  /** The most each target can cost, its input counted the cheap way or exactly; the dearest first. */
  const costs = (exact: boolean) =>
    targets
      .map((target) => {
        const inputTokens = exact ? target.input.exact() : target.input.held;
        // `bound` written out, not spread: V8 (Node 20) builds a copy spread from two objects field
        // by field, each a new hidden class (~4 µs a hold; a literal ~0.1 µs, #28).
        const asked = { cacheWrites: bound.cacheWrites, serviceTier: bound.serviceTier, webSearchCalls: target.webSearches ?? request.webSearches, inputTokens, outputTokens: target.maxOutputTokens };
        return { target, inputTokens, micro: mostCostMicro(target.entry, asked) };
      })
      .sort((a, b) => b.micro - a.micro);
  let dearest = costs(false)[0]!;
  // On a pooled app the app pays, capped per user: the store checks both in the same step.
  const capUser = caller.payer.kind === 'app' && caller.address !== null ? caller.address : undefined;
  // The budgets that may apply, a key's (when it has one) and an end user's (their own or their
  // app's default: the store reads which): each window is the one holding the clock's now, checked
  // in the same atomic step as the balance.
  const now = deps.clock.now();
  const budgetChecks: BudgetChecks = { windowAt: (period, start) => windowFor(period, start, now) };
  if (caller.keyBudgeted && caller.keyId !== null) budgetChecks.keyId = caller.keyId;
  if (caller.address !== null) budgetChecks.user = { appUuid: caller.appUuid, address: caller.address };
  // The request's count against its rate limits goes with its first hold (one step on the store).
  const { limiter } = deps;
  const pending = limiter ? caller.rateCount : undefined;
  type Held = HoldResult | ({ ok: false; beyondAnyBalance: true } & { rate?: RateStanding });
  const holdFor = async (micro: number): Promise<Held> => {
    const rate = pending && !pending.counted ? pending.plan : undefined;
    if (pending) pending.counted = true;
    // A test caller holds nothing, and more than any balance can hold (2^53 micro-credits) is
    // refused before a database is asked: their requests are counted alone.
    if (caller.isTest || micro > Number.MAX_SAFE_INTEGER) {
      const standing = rate && limiter ? await limiter.countAlone(rate) : undefined;
      if (rate && standing && !rateAllows(rate, standing)) return { ok: false, rateLimited: true, rate: standing };
      const answer: Held = caller.isTest ? { ok: true } : { ok: false, beyondAnyBalance: true };
      return standing ? { ...answer, rate: standing } : answer;
    }
    return deps.store.metering.hold(caller.payer, micro, request.requestId, capUser, budgetChecks, rate);
  };
  let held = await holdFor(dearest.micro);
  if (pending && held.rate && limiter) {
    for (const [name, value] of Object.entries(limiter.headersOf(pending.plan, held.rate))) caller.answerHeader?.(name, value);
  }
  if (!held.ok && !('rateLimited' in held)) {
    // Refused on the cheap bound: the tokenizer's exact one is lower, and may be enough.
    const exactly = costs(true)[0]!;
    if (exactly.micro < dearest.micro) {
      dearest = exactly;
      held = await holdFor(dearest.micro);
    }
  }
  const heldMicro = caller.isTest ? 0 : dearest.micro;
  if (!held.ok) {
    if ('rateLimited' in held) {
      if (!pending || !held.rate || !limiter) throw new Error('a hold refused on a rate limit it was not given');
      await refuse(limiter.refusal(pending.plan, held.rate));
    } else if ('beyondAnyBalance' in held) {
      await refuse(insufficientCredits(`Insufficient credits: this request may cost more than any balance can hold (${dearest.target.maxOutputTokens} output tokens of ${dearest.target.entry.id}). Lower max_tokens.`));
    } else if ('userLimit' in held) await refuse(userLimitReached(caller.address ?? '', held.userLimit, heldMicro));
    else if ('budgetExceeded' in held) {
      const { kind } = held.budgetExceeded;
      await refuse(budgetExceeded(kind, (kind === 'key' ? caller.keyId : caller.address) ?? '', held.budgetExceeded, heldMicro, now));
    } else {
      // What the dearest target can still write, since the hold must cover it.
      const { target, inputTokens } = dearest;
      const affordable = affordableOutputTokens(target.entry, { ...bound, inputTokens }, held.availableMicro);
      await refuse(
        insufficientCredits(
          `Insufficient credits: this request may cost up to ${microToCredits(heldMicro)} credits ` +
            `(${inputTokens} input tokens + ${target.maxOutputTokens} output tokens of ${target.entry.id}), ` +
            `and ${microToCredits(held.availableMicro)} credits are available, enough for ${affordable} output tokens. ` +
            'Lower max_tokens or add credits.',
        ),
      );
    }
  }
  let settled = false;
  // A test caller holds nothing: only real holds are in flight.
  const holding = !caller.isTest;
  if (holding) deps.observer?.holdsInFlight(1);
  const budgets = (held.ok && held.budgets) || {};
  for (const [name, value] of Object.entries(budgetHeaders(budgets))) caller.answerHeader?.(name, value);
  // The charge counts in the windows the hold counted in.
  const windows: BudgetWindows = { key: budgets.key?.windowStart, user: budgets.user?.windowStart };

  return {
    /** The budgets after this hold (those that apply), for the answer's headers. */
    budgets,
    /**
     * The target that answered (of a route or a `models` list), and the tries that failed before
     * it: the usage row names them, and the request is charged at the answering target's prices.
     */
    serve(target: ModelEntry, failed: UsageAttempt[] = []) {
      entry = target;
      attempts = failed;
    },
    /** Marks the first token (for time-to-first-token). */
    firstToken() {
      firstTokenAt ??= deps.clock.now().getTime();
    },
    /** Charges what was produced and writes the usage row; later calls do nothing. */
    async settle(usage: TokenUsage, status: UsageEvent['status'], errorCode: string | null = null) {
      if (settled) return { chargedMicro: 0 };
      settled = true;
      const made = status === 'ok' ? (request.webSearchesMade ?? 0) : 0;
      const event = eventOf(made > (usage.webSearchCalls ?? 0) ? { ...usage, webSearchCalls: made } : usage, status, errorCode);
      try {
        // The tokens count against the rate limits in the same step as the charge.
        const tokens = deps.limiter?.tokenCount(caller.rateSubject, usage.inputTokens + usage.outputTokens);
        const result = await deps.store.metering.settle(caller.payer, caller.isTest ? 0 : heldMicro, event.costMicro, event, windows, tokens);
        deps.observer?.usageRecorded(event, result.chargedMicro);
        return result;
      } finally {
        if (holding) deps.observer?.holdsInFlight(-1);
      }
    },
    /** Settles a request that failed before producing anything: nothing is charged. */
    failed(error: unknown, signal: CancelSignal) {
      return this.settle({ inputTokens: 0, outputTokens: 0 }, signal.aborted ? 'canceled' : 'error', signal.aborted ? CLIENT_CLOSED : errorCode(error));
    },
  };
}

export type Meter = Awaited<ReturnType<typeof openMeter>>;

/** One target a request may be served by, with its input bound and output budget. */
interface Target {
  entry: ModelEntry;
  input: InputBound;
  maxOutputTokens: number;
  /** Its own most web searches, where they differ from the request's. */
  webSearches?: number;
}
