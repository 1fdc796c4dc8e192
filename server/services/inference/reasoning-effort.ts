import type { ChatBody } from '../../providers/types.js';

/**
 * Thinking as Anthropic and the Responses API ask for it (a budget of tokens) in the terms of
 * chat completions, which have only `reasoning_effort`.
 */

export type ReasoningEffort = NonNullable<ChatBody['reasoning_effort']>;

/** The budget a request that enables thinking without one is taken to have. */
const DEFAULT_BUDGET = 4096;

/**
 * A thinking budget as the nearest effort: under 2,048 tokens `low`, under 8,192 `medium`,
 * from 8,192 `high` (Claude Code's "think" is about 4,000 tokens, its "think hard" 10,000).
 */
export function effortOfBudget(budgetTokens: number | undefined): ReasoningEffort {
  const budget = budgetTokens ?? DEFAULT_BUDGET;
  return budget < 2048 ? 'low' : budget < 8192 ? 'medium' : 'high';
}

/**
 * Whether a model takes `reasoning_effort`: OpenAI's reasoning models, the o-series and gpt-5
 * (not its `-chat` variants), under any provider (`openai/o3`, `openrouter/openai/gpt-5-mini`).
 * Other models would refuse the field (gpt-4o) or have no control to give it to; for them
 * thinking is accepted and has no effect. Decided by the model's name, as the upstreams do.
 */
export function takesReasoningEffort(modelId: string): boolean {
  const name = modelId.split('/').at(-1) ?? '';
  return /^(?:o\d+|gpt-5)(?:[-.]|$)/i.test(name) && !/-chat\b/i.test(name);
}
