import { isOpenAiModel } from '../../providers/tokenizer.js';
import type { ModelEntry } from '../../providers/types.js';

/** The output limits a chat request may name: OpenAI's current field and the older one. */
interface ChatLimits {
  max_tokens?: number | null | undefined;
  max_completion_tokens?: number | null | undefined;
}

/**
 * The most output tokens one choice of a chat request may write, what its hold covers: the larger
 * of the two limits it names (an upstream may read either), else the model's default — which is
 * then sent (`withOutputLimit`), so no upstream writes past what was held.
 */
export function heldOutputTokens(body: ChatLimits, entry: Pick<ModelEntry, 'defaultMaxOutputTokens'>): number {
  const named = [body.max_completion_tokens, body.max_tokens].filter((limit): limit is number => typeof limit === 'number');
  return named.length > 0 ? Math.max(...named) : entry.defaultMaxOutputTokens;
}

/**
 * A chat body as it goes upstream, naming the output limit it was held for when it names none:
 * `max_completion_tokens` for OpenAI's own models (its reasoning models refuse `max_tokens`),
 * `max_tokens` for every other host (the field every OpenAI-compatible server reads).
 */
export function withOutputLimit<T extends ChatLimits>(body: T, limit: number, upstreamModel: string): T {
  if (typeof body.max_tokens === 'number' || typeof body.max_completion_tokens === 'number') return body;
  return { ...body, [isOpenAiModel(upstreamModel) ? 'max_completion_tokens' : 'max_tokens']: limit };
}
