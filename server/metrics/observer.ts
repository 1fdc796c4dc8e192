import type { InferenceObserver } from './inference-observer.js';
import type { BreakerStore, UsageEvent } from '../store/types.js';
import { createInstruments } from './instruments.js';
import type { KnownTargets } from './labels.js';
import { createAttemptLabels, createRowLabels } from './row-labels.js';

type BreakerState = 'closed' | 'open' | 'half_open';

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half_open'];

/**
 * The observer behind `GET /metrics`: what inference reports goes into prom-client's instruments.
 * Per instance (each keeps its own; Prometheus adds them up across instances), but for the
 * breakers, which are read again from `breakers` before each scrape: on PostgreSQL another
 * instance may have moved them.
 */
export function createMetricsObserver(deps: { known: KnownTargets; breakers?: BreakerStore }) {
  const instruments = createInstruments();
  /** The targets this instance has seen (attempted, or their breaker moved): the breaker gauges' labels. */
  const seen = new Set<string>();
  const { known } = deps;
  const labelsOf = createRowLabels(known);
  const attemptLabelsOf = createAttemptLabels(known);

  const showBreaker = (target: string, state: BreakerState) => {
    for (const each of BREAKER_STATES) instruments.breaker.set({ target, state: each }, each === state ? 1 : 0);
    seen.add(target);
  };
  /** Each target this instance has seen, its breaker as the (possibly shared) store has it now. */
  const readBreakers = async () => {
    const { breakers } = deps;
    if (!breakers) return;
    const targets = [...seen].filter((target) => known.hasModel(target));
    const records = await Promise.all(targets.map((target) => breakers.read(target)));
    targets.forEach((target, index) => showBreaker(target, records[index]?.state ?? 'closed'));
  };

  const observer: InferenceObserver = {
    usageRecorded(row: UsageEvent, chargedMicro: number) {
      const labels = labelsOf(row);
      instruments.requests.inc(labels.requests);
      instruments.cost.inc(labels.target, row.costMicro);
      instruments.charged.inc(labels.target, chargedMicro);
      // A refused request never reached the upstream: it used no tokens and took no time there.
      if (row.status === 'refused') return;
      instruments.tokens.observe(labels.input, row.inputTokens);
      instruments.tokens.observe(labels.output, row.outputTokens);
      if (row.cacheReadTokens) instruments.tokens.observe(labels.cached, row.cacheReadTokens);
      instruments.duration.observe(labels.duration, row.latencyMs / 1000);
      if (row.status === 'ok' && row.ttftMs !== null) instruments.firstToken.observe(labels.target, row.ttftMs / 1000);
    },
    attemptEnded(attempt) {
      const labels = attemptLabelsOf(attempt);
      instruments.attempts.inc(labels.attempts);
      if (labels.failed) instruments.upstreamErrors.inc(labels.failed);
      if (attempt.retry) instruments.retries.inc(labels.target);
      if (attempt.fallback) instruments.fallbacks.inc(labels.target);
      seen.add(labels.seen);
    },
    breakerChanged(target, state) {
      // Only the server's own targets: a breaker is kept per configured target.
      if (known.hasModel(target)) showBreaker(target, state);
    },
    holdsInFlight(delta) {
      instruments.holds.inc(delta);
    },
  };

  return {
    observer,
    /** The Prometheus text exposition of every instrument. */
    async scrape() {
      await readBreakers();
      return { contentType: instruments.registry.contentType, body: await instruments.registry.metrics() };
    },
  };
}

export type MetricsObserver = ReturnType<typeof createMetricsObserver>;
