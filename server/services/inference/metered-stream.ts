import { ApiError } from '../../errors.js';
import { writtenText } from '../../providers/openai/schemas.js';
import { chatUsageOf, tokenUsageOfChat } from '../../providers/openai/usage.js';
import { tokensOfLength, writtenWeight, type InputBound } from '../../providers/tokens.js';
import type { ChatChunk, TokenUsage } from '../../providers/types.js';
import { microToCredits } from '../../store/money.js';
import { CLIENT_CLOSED, errorCode, type Meter } from './meter.js';
import type { CancelSignal } from '../../cancellation.js';

/** Any failure as the API's error (an unexpected one is the upstream's fault: 502). */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError
    ? error
    : new ApiError(502, 'upstream_error', `The upstream failed mid-stream: ${(error as Error).message}`, 'upstream_error');
}

/**
 * Passes a chunk stream through while metering it: marks the first token, and when the stream
 * ends — finished, failed, or cut short by the client — settles exactly once for what was
 * produced. The usage comes last, in a chunk of its own, after the settlement, so it carries what
 * was charged (`cost`, credits); an upstream that reports no usage gets an estimated one, so
 * whoever reads the stream sees the numbers that were charged.
 */
export async function* meteredChunks(
  chunks: AsyncIterable<ChatChunk>,
  meter: Meter,
  input: InputBound,
  signal: CancelSignal,
): AsyncGenerator<ChatChunk> {
  let usage: TokenUsage | null = null;
  let produced = '';
  let status: 'ok' | 'error' | 'canceled' = 'ok';
  let failure: string | null = null;
  let last: ChatChunk | null = null;
  let usageChunk: ChatChunk | null = null;
  const estimate = (): TokenUsage => ({ inputTokens: input.exact(), outputTokens: tokensOfLength(writtenWeight(produced)) });
  try {
    for await (const chunk of chunks) {
      // The upstream's own count, its cached and reasoning parts included (they are priced apart);
      // passed on once settled, with the cost.
      if (chunk.usage) {
        usage = tokenUsageOfChat(chunk.usage, chunk.service_tier);
        usageChunk = chunk;
      }
      const delta = chunk.choices[0]?.delta;
      // Reasoning is output too: it marks the first token and counts when there is no usage to read.
      const piece = delta ? writtenText(delta) : '';
      if (piece) {
        meter.firstToken();
        produced += piece;
      }
      last = chunk;
      if (chunk.usage) {
        const { usage: _later, ...rest } = chunk;
        if (rest.choices.length > 0) yield rest;
      } else yield chunk;
    }
    const template = usageChunk ?? last;
    if (template) {
      const counted = usage ?? estimate();
      const { chargedMicro } = await meter.settle(counted, 'ok');
      yield { ...template, choices: [], usage: { ...(usageChunk?.usage ?? chatUsageOf(counted)), cost: microToCredits(chargedMicro) } };
    }
  } catch (error) {
    status = signal.aborted ? 'canceled' : 'error';
    failure = signal.aborted ? CLIENT_CLOSED : errorCode(error);
    throw error;
  } finally {
    if (signal.aborted && status === 'ok') {
      status = 'canceled';
      failure = CLIENT_CLOSED;
    }
    // The upstream's own count when it sent one (a last usage chunk), else an estimate of what was produced.
    await meter.settle(usage ?? estimate(), status, failure);
  }
}
