import type { Principal, RatePlan } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { ErrorProtocol } from '../error-shapes.js';
import type { AppRecord, RateStanding, Store, TokenCount } from '../store/types.js';

export interface RateLimitDefaults {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

const MINUTE = 60_000;

/** Whose limit a request counts against: its API key, or its end user. */
export function rateSubject(principal: { kind: 'api_key'; keyId: string } | { kind: 'user'; app: AppRecord; address: string }): string {
  return principal.kind === 'api_key' ? `key:${principal.keyId}` : `user:${principal.app.appUuid}/${principal.address}`;
}

/** The subscriber a rate subject belongs to: the app for a key, the user for a user. */
function subscriberOf(subject: string, app: AppRecord): { appUuid: string; address: string } {
  const userPrefix = `user:${app.appUuid}/`;
  return { appUuid: app.appUuid, address: subject.startsWith(userPrefix) ? subject.slice(userPrefix.length) : '' };
}

/**
 * Requests and tokens per minute, per key and per user: the server's defaults, or the app's
 * own (`rate_limit_rpm`, `rate_limit_tpm`). Fixed one-minute windows on the server's clock; the
 * counters live behind the store interface.
 */

export function createRateLimitService(deps: {
  store: Store;
  clock: Clock;
  rateLimits: RateLimitDefaults;
  /** How much the subscriber's plan raises its limits (1 without a subscription). */
  planMultiplier?: (subscriber: { appUuid: string; address: string }) => Promise<number>;
}) {
  const window = () => {
    const now = deps.clock.now().getTime();
    const start = Math.floor(now / MINUTE) * MINUTE;
    return { start, resetSeconds: Math.max(1, Math.ceil((start + MINUTE - now) / 1000)) };
  };
  const limitsOf = async (subject: string, app: AppRecord) => {
    const times = (await deps.planMultiplier?.(subscriberOf(subject, app))) ?? 1;
    return {
      requests: (app.rateLimitRpm ?? deps.rateLimits.requestsPerMinute) * times,
      tokens: (app.rateLimitTpm ?? deps.rateLimits.tokensPerMinute) * times,
    };
  };

  const exceeded = (what: string, limit: number, resetSeconds: number, headers: Record<string, string>) =>
    new ApiError(
      429,
      'rate_limit_exceeded',
      `Rate limit reached: ${limit} ${what} per minute. Retry in ${resetSeconds} s, raise the app's limit (rate_limit_rpm, rate_limit_tpm), or subscribe to a plan that raises it.`,
      'rate_limit_exceeded',
      null,
      { ...headers, 'retry-after': String(resetSeconds) },
    );

  /** What counting one request of this caller means now: its counters, its limits, its window. */
  async function planCount(principal: Principal, protocol: ErrorProtocol): Promise<RatePlan> {
    const { start, resetSeconds } = window();
    const subject = rateSubject(principal);
    const limits = await limitsOf(subject, principal.app);
    return {
      windowStart: start,
      resetSeconds,
      protocol,
      requestKey: `requests:${subject}`,
      requestLimit: limits.requests,
      tokenKey: `tokens:${subject}`,
      tokenLimit: limits.tokens,
    };
  }

  /**
   * The headers that say where a caller stands once its request was counted: svc's own, and those
   * of the protocol its route speaks, as its provider writes them, for clients that read them —
   * OpenAI's (resets as durations, "56s") or Anthropic's (resets as RFC 3339 times).
   */
  const headersOf = (plan: RatePlan, standing: RateStanding): Record<string, string> => {
    const requests = { limit: String(plan.requestLimit), remaining: String(Math.max(0, plan.requestLimit - standing.requests)) };
    const tokens = { limit: String(plan.tokenLimit), remaining: String(Math.max(0, plan.tokenLimit - standing.tokens)) };
    const svc = {
      'x-ratelimit-limit': requests.limit,
      'x-ratelimit-remaining': requests.remaining,
      'x-ratelimit-reset': String(plan.resetSeconds),
      'x-ratelimit-limit-tokens': tokens.limit,
      'x-ratelimit-remaining-tokens': tokens.remaining,
    };
    if (plan.protocol === 'anthropic') {
      const reset = new Date(plan.windowStart + MINUTE).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return {
        ...svc,
        'anthropic-ratelimit-requests-limit': requests.limit,
        'anthropic-ratelimit-requests-remaining': requests.remaining,
        'anthropic-ratelimit-requests-reset': reset,
        'anthropic-ratelimit-tokens-limit': tokens.limit,
        'anthropic-ratelimit-tokens-remaining': tokens.remaining,
        'anthropic-ratelimit-tokens-reset': reset,
      };
    }
    const reset = `${plan.resetSeconds}s`;
    return {
      ...svc,
      'x-ratelimit-limit-requests': requests.limit,
      'x-ratelimit-remaining-requests': requests.remaining,
      'x-ratelimit-reset-requests': reset,
      'x-ratelimit-reset-tokens': reset,
    };
  };

  /** The 429 of a request counted past a limit (the requests first), with its headers and retry-after. */
  const refusal = (plan: RatePlan, standing: RateStanding) =>
    standing.requests > plan.requestLimit
      ? exceeded('requests', plan.requestLimit, plan.resetSeconds, headersOf(plan, standing))
      : exceeded('tokens', plan.tokenLimit, plan.resetSeconds, headersOf(plan, standing));

  /** Counts a request on its own (one step: its count added, its tokens read). */
  async function countAlone(plan: RatePlan): Promise<RateStanding> {
    const { added, read } = await deps.store.rateCounters.addAndGet(plan.requestKey, plan.tokenKey, plan.windowStart, 1);
    return { requests: added, tokens: read };
  }

  return {
    planCount,
    headersOf,
    refusal,
    countAlone,

    /**
     * Counts one request of this caller and returns the headers that say where it stands;
     * throws a 429 (with those headers and retry-after) past the request limit. A metered request
     * is counted by its hold instead (`planCount`), in the same step.
     */
    async countRequest(principal: Principal, protocol: ErrorProtocol): Promise<{ headers: Record<string, string> }> {
      const plan = await planCount(principal, protocol);
      const standing = await countAlone(plan);
      if (standing.requests > plan.requestLimit) throw refusal(plan, standing);
      return { headers: headersOf(plan, standing) };
    },

    /**
     * Before inference, for a request not counted by its hold: a caller whose tokens this minute
     * have reached the limit waits (429).
     */
    async checkTokens(subject: string, app: AppRecord): Promise<void> {
      const { start, resetSeconds } = window();
      const limit = (await limitsOf(subject, app)).tokens;
      const tokens = await deps.store.rateCounters.get(`tokens:${subject}`, start);
      if (tokens >= limit) {
        throw exceeded('tokens', limit, resetSeconds, {});
      }
    },

    /** After inference: the tokens it used, to count against this minute (with the settlement, where the store can). */
    tokenCount(subject: string, tokens: number): TokenCount | undefined {
      return tokens > 0 ? { key: `tokens:${subject}`, windowStart: window().start, tokens } : undefined;
    },
  };
}

export type RateLimitService = ReturnType<typeof createRateLimitService>;
