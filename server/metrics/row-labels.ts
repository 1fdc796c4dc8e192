import type { UsageEvent } from '../store/types.js';
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

/**
 * The label sets of each kind of usage row (operation, provider, model, status, error code), built
 * once: every request of the same kind is counted under the same objects, so the observer builds
 * none per request (it built six).
 */
export function createRowLabels(known: KnownTargets): (row: UsageEvent) => RowLabels {
  const kinds = new Map<string, RowLabels>();
  const build = (row: UsageEvent): RowLabels => {
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
  };
  return (row) => {
    const key = `${row.operation}\n${row.provider}\n${row.model}\n${row.status}\n${row.errorCode ?? ''}`;
    const found = kinds.get(key);
    if (found) return found;
    const labels = build(row);
    if (kinds.size < MAX_KINDS) kinds.set(key, labels);
    return labels;
  };
}
