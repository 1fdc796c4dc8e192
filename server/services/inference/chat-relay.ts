import { spliceStringField } from '../../providers/json-splice.js';
import { chatUsageOf, tokenUsageOfChat } from '../../providers/openai/usage.js';
import { tokensOfLength, type InputBound } from '../../providers/tokens.js';
import type { ChatCompletionJson, RelayedChatBatch, RelayedChatChunk, RelayedCompletion, TokenUsage } from '../../providers/types.js';
import { microToCredits } from '../../store/money.js';
import type { SseBatch, SseEvent } from '../../streams.js';
import { asApiError } from './metered-stream.js';
import { CLIENT_CLOSED, errorCode, type Meter } from './meter.js';
import type { CancelSignal } from '../../cancellation.js';

/**
 * A chat completion relayed from an upstream that speaks chat completions (the client does too):
 * the upstream's answer goes on as it was written, with the gateway's model id put in its place and
 * the usage carrying what was charged; only metering reads it (server/providers/openai/relay.ts).
 */

/** A chunk's JSON, parsed where the relay read it from its text. */
const jsonOf = (chunk: RelayedChatChunk): Record<string, unknown> => chunk.json ?? (JSON.parse(chunk.data) as Record<string, unknown>);

/** A chunk's JSON text with the gateway's model id for the upstream's: spliced in place, re-encoded only where it cannot be. */
function withModel(chunk: RelayedChatChunk, modelId: string, modelJson: string): string {
  // A parsed chunk says which value the splice must find; a scanned one has its top-level key found.
  const upstreamModel = chunk.json ? chunk.json.model : undefined;
  const spliced = chunk.json && typeof upstreamModel !== 'string' ? null : spliceStringField(chunk.data, 'model', 1, upstreamModel as string | undefined, modelJson);
  return spliced ?? JSON.stringify({ ...jsonOf(chunk), model: modelId });
}

/**
 * A chunk's `"usage":null` (the upstream writes it on every chunk because usage is always asked
 * for), left out where the client did not ask for usage, as OpenAI leaves it out. OpenAI writes
 * it last; written elsewhere, it stays.
 */
const NULL_USAGE_END = ',"usage":null}';
const withoutNullUsage = (text: string) => (text.endsWith(NULL_USAGE_END) ? `${text.slice(0, -NULL_USAGE_END.length)}}` : text);

/** The settled answer: the upstream's own, under the gateway's model id, its usage with what was charged. */
export async function settledCompletion(relayed: RelayedCompletion, meter: Meter, modelId: string): Promise<ChatCompletionJson> {
  const { answer, usage } = relayed;
  const { chargedMicro } = await meter.settle(usage, 'ok');
  answer.model = modelId;
  // Added in place (the answer is ours to send): a spread copy with a new field is slow in V8.
  answer.usage.cost = microToCredits(chargedMicro);
  return answer;
}

/**
 * Relayed chunks (in batches, as they arrived together) as the client's events, in the same
 * batches, metered on the way: marks the first token, and when the stream ends — finished,
 * failed, or cut short by the client — settles exactly once for what was produced (the upstream's
 * usage, else an estimate of what was written). The usage comes last, in a chunk of its own,
 * after the settlement, so it carries what was charged (`cost`), and only when the client asked
 * for it (`include_usage`); then `[DONE]`. The batch that ends the stream waits for the
 * settlement and goes with that end: one write, not two (the whole of a short answer, often). A
 * failure after the stream has started is one error event, then the end.
 */
export async function* relayedChatEvents(
  batches: AsyncIterable<RelayedChatBatch>,
  meter: Meter,
  options: { input: InputBound; modelId: string; includeUsage: boolean; signal: CancelSignal },
): AsyncGenerator<SseEvent | SseBatch> {
  const { input, modelId, includeUsage, signal } = options;
  const modelJson = JSON.stringify(modelId);
  let usage: TokenUsage | null = null;
  let usageChunk: RelayedChatChunk | null = null;
  let last: RelayedChatChunk | null = null;
  let written = 0;
  /** The events of the batch that ended the stream: they go with its end. */
  let ending: readonly SseEvent[] = [];
  const estimate = (): TokenUsage => ({ inputTokens: input.exact(), outputTokens: tokensOfLength(written) });
  try {
    for await (const { chunks, ended } of batches) {
      const events: SseEvent[] = [];
      for (const chunk of chunks) {
        last = chunk;
        // Reasoning is output too: it marks the first token and counts when there is no usage to read.
        if (chunk.written > 0) {
          meter.firstToken();
          written += chunk.written;
        }
        if (chunk.usage) {
          usage = tokenUsageOfChat(chunk.usage, chunk.serviceTier);
          usageChunk = chunk;
          // The usage goes on once settled; choices beside it go on now (rare: most upstreams send it alone).
          if (chunk.hasChoices) events.push({ data: JSON.stringify({ ...jsonOf(chunk), model: modelId, usage: undefined }) });
        } else if (chunk.hasChoices) {
          const data = withModel(chunk, modelId, modelJson);
          events.push({ data: includeUsage ? data : withoutNullUsage(data) });
        }
      }
      if (ended) ending = events;
      else if (events.length > 0) yield events;
    }
    const end = [...ending];
    if (last) {
      const counted = usage ?? estimate();
      const { chargedMicro } = await meter.settle(counted, 'ok');
      if (includeUsage) {
        const template = usageChunk ?? last;
        const charged = { ...(usageChunk?.usage ?? chatUsageOf(counted)), cost: microToCredits(chargedMicro) };
        end.push({ data: JSON.stringify({ ...jsonOf(template), model: modelId, choices: [], usage: charged }) });
      }
    }
    end.push({ data: '[DONE]' });
    yield end;
  } catch (error) {
    // Settled before the error event goes out: whoever reads the end of the stream finds the usage row.
    await meter.settle(usage ?? estimate(), signal.aborted ? 'canceled' : 'error', signal.aborted ? CLIENT_CLOSED : errorCode(error));
    if (!signal.aborted) {
      const { message, type, code, param } = asApiError(error);
      // What the upstream wrote before the failure (a settlement that failed) still reaches the client.
      yield [...ending, { data: JSON.stringify({ error: { message, type, code, param } }) }];
    }
  } finally {
    // A client gone mid-stream (the iteration closed early): what reached it, or the upstream's count.
    await meter.settle(usage ?? estimate(), signal.aborted ? 'canceled' : 'ok', signal.aborted ? CLIENT_CLOSED : null);
  }
}
