import type { Principal, TokensSeen } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { AppRecord, Store } from '../store/types.js';

export interface RateLimitDefaults {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

const MINUTE = 60_000;

/** Whose limit a request counts against: its API key, or its end user. */
export function rateSubject(principal: { kind: 'api_key'; keyId: string } | { kind: 'user'; app: AppRecord; address: string }): string {
  return principal.kind === 'api_key' ? `key:${principal.keyId}` : `user:${principal.app.appUuid}/${principal.address}`;
}

/**
 * Requests and tokens per minute, per key and per user: the server's defaults, or the app's
 * own (`rate_limit_rpm`, `rate_limit_tpm`). Fixed one-minute windows on the server's clock; the
 * counters live behind the store interface.
 */
/** The subscriber a rate subject belongs to: the app for a key, the user for a user. */
function subscriberOf(subject: string, app: AppRecord): { appUuid: string; address: string } {
  const userPrefix = `user:${app.appUuid}/`;
  return { appUuid: app.appUuid, address: subject.startsWith(userPrefix) ? subject.slice(userPrefix.length) : '' };
}

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

  return {
    /**
     * Counts one request of this caller and returns the headers that say where it stands, and
     * the tokens it read (the meter checks those, rather than read them again);
     * throws a 429 (with those headers and retry-after) past the request or token limit.
     */
    async countRequest(principal: Principal): Promise<{ headers: Record<string, string>; tokensSeen: TokensSeen }> {
      const { start, resetSeconds } = window();
      const subject = rateSubject(principal);
      const limits = await limitsOf(subject, principal.app);
      // One step (one round trip on a shared store): this request counted, the tokens read.
      const { added: requests, read: tokens } = await deps.store.rateCounters.addAndGet(`requests:${subject}`, `tokens:${subject}`, start, 1);
      const headers = {
        'x-ratelimit-limit': String(limits.requests),
        'x-ratelimit-remaining': String(Math.max(0, limits.requests - requests)),
        'x-ratelimit-reset': String(resetSeconds),
        'x-ratelimit-limit-tokens': String(limits.tokens),
        'x-ratelimit-remaining-tokens': String(Math.max(0, limits.tokens - tokens)),
      };
      if (requests > limits.requests) throw exceeded('requests', limits.requests, resetSeconds, headers);
      return { headers, tokensSeen: { windowStart: start, tokens } };
    },

    /**
     * Before inference: a caller whose tokens this minute have reached the limit waits (429). The
     * tokens counting the request read (`seen`) stand when still of this window: they were read
     * moments ago, and tokens are counted only at settlement anyway, so requests in flight
     * together all pass this check whichever read it used.
     */
    async checkTokens(subject: string, app: AppRecord, seen?: TokensSeen): Promise<void> {
      const { start, resetSeconds } = window();
      const limit = (await limitsOf(subject, app)).tokens;
      const tokens = seen?.windowStart === start ? seen.tokens : await deps.store.rateCounters.get(`tokens:${subject}`, start);
      if (tokens >= limit) {
        throw exceeded('tokens', limit, resetSeconds, {});
      }
    },

    /** After inference: the tokens it used count against this minute. */
    async addTokens(subject: string, tokens: number): Promise<void> {
      if (tokens > 0) await deps.store.rateCounters.add(`tokens:${subject}`, window().start, tokens);
    },
  };
}

export type RateLimitService = ReturnType<typeof createRateLimitService>;
