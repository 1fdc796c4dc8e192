// What a metered request leaves behind (usage rows and reports), and the counters and breakers beside it.

/**
 * A request's tokens, in OpenAI's convention: `inputTokens` is every input token (cached or not)
 * and `outputTokens` every output token (reasoning included); the optional counts are parts of
 * those totals, priced apart. What an upstream reports (`TokenUsage`) and a usage row keeps.
 */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  /** Input read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Input written to the prompt cache for five minutes (Anthropic's default ttl). */
  cacheWriteTokens?: number;
  /** Input written to the prompt cache for an hour. */
  cacheWrite1hTokens?: number;
  /** Output spent on reasoning (thinking). */
  reasoningTokens?: number;
}

export interface UsageEvent extends TokenCounts {
  requestId: string;
  appUuid: string;
  keyId: string | null;
  address: string | null;
  provider: string;
  model: string;
  operation: string;
  /** The mode of the key or user that made the request: reports show each mode only its own usage. */
  livemode: boolean;
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

/** Counters in fixed one-minute windows, for rate limits. */
export interface RateCounter {
  /** Adds `amount` to the counter of `key` in the window starting at `windowStart`; returns the new total. */
  add(key: string, windowStart: number, amount: number): Promise<number>;
  get(key: string, windowStart: number): Promise<number>;
  /** `add` on `key` and `get` of `readKey` in one step (one round trip where the counters are shared). */
  addAndGet(key: string, readKey: string, windowStart: number, amount: number): Promise<{ added: number; read: number }>;
}
