import { SseReply, type SseEvent } from '../../streams.js';
import { boundsOf, estimateChatInputTokens, inputBoundOf } from '../../providers/tokens.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChatBody, ChatChunk, ModelEntry } from '../../providers/types.js';
import type { Caller } from './caller.js';
import { rewriteChunks, rewriteCompletion } from './image-model.js';
import { asApiError, meteredChunks } from './metered-stream.js';
import { relayedChatEvents, settledCompletion } from './chat-relay.js';
import { microToCredits } from '../../store/money.js';
import { openMeter, type MeterOptions } from './meter.js';
import { heldOutputTokens, withOutputLimit } from './output-limit.js';
import { chatSearches } from './web-searches.js';
import { routingOf, type Routing } from './routing/runner.js';
import { firstEventOf, serveMetered } from './routing/served.js';
import type { CancelSignal } from '../../cancellation.js';

/** Chunks as chat-completion events: our model id, usage only when asked, then [DONE]. */
async function* chatEvents(chunks: AsyncIterable<ChatChunk>, modelId: string, includeUsage: boolean, signal: CancelSignal): AsyncGenerator<SseEvent> {
  try {
    for await (const { usage, ...chunk } of chunks) {
      if (chunk.choices.length > 0) yield { data: JSON.stringify({ ...chunk, model: modelId }) };
      if (usage && includeUsage) yield { data: JSON.stringify({ ...chunk, model: modelId, choices: [], usage }) };
    }
    yield { data: '[DONE]' };
  } catch (error) {
    // An error after the stream has started: one error event, then the stream ends.
    if (!signal.aborted) {
      const { message, type, code, param } = asApiError(error);
      yield { data: JSON.stringify({ error: { message, type, code, param } }) };
    }
  }
}

/** What a chat request sends upstream: the body without the gateway's own routing field. */
function upstreamBody(body: ChatBody): ChatBody {
  const { models: _fallbacks, ...rest } = body;
  return rest;
}

export function createChatService(deps: MeterOptions & { registry: ProviderRegistry; routing?: Routing }) {
  const routing = deps.routing ?? routingOf(deps);
  return {
    /** `operation` names the front door in the usage row (chat.completions, messages.create). */
    async complete(caller: Caller, body: ChatBody, requestId: string, signal: CancelSignal, operation = 'chat.completions') {
      const plan = routing.plan(deps.registry.requested([body.model, ...(body.models ?? [])], 'chat'), body.stream ? 'stream' : 'answer');
      // n choices may each write the whole budget: the hold covers them all, on the dearest target.
      const choices = body.n ?? 1;
      const outputOf = (entry: ModelEntry) => heldOutputTokens(body, entry);
      // A search model searches once a request: held for, and charged with the answer. An
      // Anthropic model refuses web_search_options by name (no cap to send): nothing to hold there.
      const searches = chatSearches(body);
      const [first, ...alternatives] = plan.targets.map(({ entry, adapter }) => ({
        entry,
        input: inputBoundOf((bounds) => estimateChatInputTokens(body, bounds), boundsOf(entry)),
        maxOutputTokens: outputOf(entry) * choices,
        webSearches: adapter.messages ? 0 : searches,
      }));
      if (!first) throw new Error('a plan has at least one target');
      const meter = await openMeter(deps, { caller, ...first, operation, requestId, serviceTier: body.service_tier, webSearchesMade: searches, alternatives });
      const sent = upstreamBody(body);
      // Sent with the output limit it was held for, so no upstream writes past the hold.
      const callOf = (entry: ModelEntry) => ({ model: entry.model, body: withOutputLimit(sent, outputOf(entry), entry.model), maxOutputTokens: outputOf(entry), signal });
      const inputOf = (entry: ModelEntry) => [first, ...alternatives].find((target) => target.entry === entry)?.input ?? first.input;
      // A chat-completions client of an upstream that speaks chat completions gets the upstream's
      // answer as it was written, read only for metering (an image model to put into tool calls
      // needs the answer read; so does a translation to another protocol).
      const relays = operation === 'chat.completions' && !body.image_model;
      if (body.stream) {
        const includeUsage = body.stream_options?.include_usage === true;
        const { value, target } = await serveMetered(routing, plan, meter, signal, caller.answerHeader, async ({ entry, adapter }) =>
          relays && adapter.relayChatStream
            ? { kind: 'relayed' as const, chunks: await firstEventOf(adapter.relayChatStream(callOf(entry))) }
            : { kind: 'read' as const, chunks: await firstEventOf(adapter.chatStream(callOf(entry))) },
        );
        const modelId = target.entry.id;
        if (value.kind === 'relayed') return new SseReply(relayedChatEvents(value.chunks, meter, { input: inputOf(target.entry), modelId, includeUsage, signal }));
        const chunks = meteredChunks(rewriteChunks(value.chunks, body.image_model), meter, inputOf(target.entry), signal);
        return new SseReply(chatEvents(chunks, modelId, includeUsage, signal));
      }
      const { value, target } = await serveMetered(routing, plan, meter, signal, caller.answerHeader, async ({ entry, adapter }) =>
        relays && adapter.relayChat ? { kind: 'relayed' as const, ...(await adapter.relayChat(callOf(entry))) } : { kind: 'read' as const, ...(await adapter.chat(callOf(entry))) },
      );
      try {
        if (value.kind === 'relayed') return await settledCompletion(value, meter, target.entry.id);
        const { completion, usage } = value;
        const { chargedMicro } = await meter.settle(usage, 'ok');
        const answer = rewriteCompletion(completion, body.image_model);
        return { ...answer, model: target.entry.id, ...(answer.usage ? { usage: { ...answer.usage, cost: microToCredits(chargedMicro) } } : {}) };
      } catch (error) {
        await meter.failed(error, signal);
        throw error;
      }
    },
  };
}
