import type { UsageEvent } from '../store/types.js';
import type { InferenceObserver } from './inference-observer.js';
import { codeLabel, genAiOperation, targetLabels, type KnownTargets } from './labels.js';

type Labels = Record<string, string>;

/** The label sets a usage row is counted under, one per instrument. */
export interface RowLabels {
  requests: Labels;
  /** Cost and charge, and time to first token. */
  target: Labels;
  input: Labels;
  output: Labels;
  cached: Labels;
  duration: Labels;
}

/** Kinds of row remembered at most: their key comes partly from what callers send (a refused row's model). */
const MAX_KINDS = 1024;

/** Remembers what `build` gives for each key, up to MAX_KINDS keys; past them it builds every time. */
function remembered<T, L>(keyOf: (value: T) => string, build: (value: T) => L): (value: T) => L {
  const kinds = new Map<string, L>();
  return (value) => {
    const key = keyOf(value);
    const found = kinds.get(key);
    if (found) return found;
    const labels = build(value);
    if (kinds.size < MAX_KINDS) kinds.set(key, labels);
    return labels;
  };
}

/**
 * The label sets of each kind of usage row (operation, provider, model, status, error code), built
 * once: every request of the same kind is counted under the same objects, so the observer builds
 * none per request (it built six).
 */
export function createRowLabels(known: KnownTargets): (row: UsageEvent) => RowLabels {
  return remembered(
    (row) => `${row.operation}\n${row.provider}\n${row.model}\n${row.status}\n${row.errorCode ?? ''}`,
    (row) => {
      const target = { gen_ai_operation_name: genAiOperation(row.operation), ...targetLabels(known, row.provider, row.model) };
      const errorType = codeLabel(row.errorCode);
      return {
        requests: { ...target, operation: codeLabel(row.operation), status: row.status, error_type: errorType },
        target,
        input: { ...target, gen_ai_token_type: 'input' },
        output: { ...target, gen_ai_token_type: 'output' },
        cached: { ...target, gen_ai_token_type: 'cached' },
        duration: { ...target, error_type: row.status === 'ok' ? '' : errorType },
      };
    },
  );
}

/** The label sets an upstream attempt is counted under. */
export interface AttemptLabels {
  /** Retries and fallbacks. */
  target: Labels;
  /** Attempts, by outcome. */
  attempts: Labels;
  /** Upstream errors, by error class: null for an attempt that succeeded. */
  failed: Labels | null;
  /** The target as the breaker gauges name it. */
  seen: string;
}

/** The label sets of each kind of attempt (route, provider, model, outcome), built once, as a row's are (#28). */
export function createAttemptLabels(known: KnownTargets): (attempt: Pick<Parameters<InferenceObserver['attemptEnded']>[0], 'route' | 'provider' | 'model' | 'outcome'>) => AttemptLabels {
  return remembered(
    (attempt) => `${attempt.route ?? ''}\n${attempt.provider}\n${attempt.model}\n${attempt.outcome}`,
    (attempt) => {
      const target = { route: attempt.route ?? '', ...targetLabels(known, attempt.provider, attempt.model) };
      const outcome = codeLabel(attempt.outcome);
      return {
        target,
        attempts: { ...target, outcome },
        failed: outcome !== 'ok' ? { ...target, error_class: outcome } : null,
        seen: `${target.gen_ai_provider_name}/${target.gen_ai_request_model}`,
      };
    },
  );
}
