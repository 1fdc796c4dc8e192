import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { MessagesBody } from '../../../src/contract/schemas/messages.js';
import { anthropicError } from '../../error-shapes.js';
import { SseReply, type SseBatch, type SseEvent } from '../../streams.js';
import { AnthropicUsage, mergeUsage, tokenUsageOf } from '../../providers/anthropic/usage.js';
import { spliceStringField } from '../../providers/json-splice.js';
import { boundsOf, estimateMessagesInputTokens, inputBoundOf, tokensOfLength, writtenWeight, type InputBounds } from '../../providers/tokens.js';
import type { MessagesCall, ModelEntry, NativeMessages, RelayedEvent } from '../../providers/types.js';
import { microToCredits } from '../../store/money.js';
import type { ResolvedModel } from '../../providers/registry.js';
import type { Caller } from './caller.js';
import { asApiError } from './metered-stream.js';
import { CLIENT_CLOSED, errorCode, openMeter, type Meter, type MeterOptions } from './meter.js';
import type { CacheWrites } from './pricing.js';
import type { Routing, TargetPlan } from './routing/runner.js';
import { firstEventOf, serveMetered } from './routing/served.js';
import { cappedMessagesSearches } from './web-searches.js';
import { assertMessagesToolsPriced } from './unpriced-tools.js';
import type { CancelSignal } from '../../cancellation.js';

/** What the relay reads of the events that carry usage; the rest passes as the upstream wrote it. */
const MessageStart = z.looseObject({ message: z.looseObject({ usage: AnthropicUsage.nullish(), model: z.unknown() }) });
const MessageDelta = z.looseObject({ usage: AnthropicUsage.nullish() });

const weightOf = (value: unknown) => (typeof value === 'string' ? writtenWeight(value) : 0);

/**
 * The characters a `content_block_delta` writes (text, thinking, tool input), 0 when it cannot
 * be read (it is passed on all the same): read on every delta, so without a schema.
 */
function writtenChars(data: string): number {
  try {
    const { delta } = JSON.parse(data) as { delta?: unknown };
    if (typeof delta !== 'object' || delta === null) return 0;
    const { text, thinking, partial_json: partialJson } = delta as Record<string, unknown>;
    return weightOf(text) + weightOf(thinking) + weightOf(partialJson);
  } catch {
    return 0;
  }
}

/** The JSON of an event the relay must read, or null when it cannot be read (it is passed on all the same). */
function read<T extends z.ZodType>(schema: T, data: string): z.output<T> | null {
  try {
    const parsed = schema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The cache writes a request may cause: Anthropic writes only at a `cache_control` breakpoint
 * (on a block, a tool, or the request itself), for an hour only where one asks for it.
 */
export function cacheWritesOf(body: unknown): CacheWrites {
  const text = JSON.stringify(body);
  if (!text.includes('"cache_control"')) return 'none';
  return /"ttl"\s*:\s*"1h"/.test(text) ? '1h' : '5m';
}

/** The client's `anthropic-version` and `anthropic-beta`, passed on as they came. */
function protocolHeaders(headers: IncomingHttpHeaders): MessagesCall['headers'] {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);
  const version = one(headers['anthropic-version']);
  const beta = one(headers['anthropic-beta']);
  return { ...(version ? { version } : {}), ...(beta ? { beta } : {}) };
}

/** The window Anthropic gives a model for a request that sends `anthropic-beta: context-1m-…`. */
const WIDENED_WINDOW = 1_000_000;

/**
 * What bounds a relayed request's input: the model's own, its window widened where the request's
 * betas widen it (the upstream then reads, and bills at its long-context price, past the window
 * the providers file gives).
 */
function relayedBounds(entry: ModelEntry, headers: MessagesCall['headers']): InputBounds {
  const bounds = boundsOf(entry);
  const widened = headers.beta?.split(',').some((beta) => beta.trim().startsWith('context-1m-')) ?? false;
  return widened && bounds.contextTokens !== null ? { ...bounds, contextTokens: Math.max(bounds.contextTokens, WIDENED_WINDOW) } : bounds;
}

/**
 * Upstream events to the client, as they arrive (those of one piece of the upstream's body in one
 * step: one socket write): `message_start` with the gateway's model id, every other event as the
 * upstream wrote it. Usage is read on the way (`message_start`, then each `message_delta`) and
 * settled once when the stream ends, however it ends: a stream cut before its last
 * `message_delta` pays for the input the upstream counted and the output that reached the client.
 * A failure after the first event ends the stream with Anthropic's `event: error`, never a
 * clean-looking end. The last `message_delta` is settled before it is passed on, so its usage
 * carries what was charged (`cost`, credits); the events of its piece wait for that settlement
 * and go with it (the whole end of a stream, and often a whole short answer, in one write). An
 * error event is settled before it goes out too, so whoever reads the end of the stream finds
 * the charge and no hold.
 */
export async function* relayedEvents(batches: AsyncIterable<RelayedEvent[]>, meter: Meter, modelId: string, signal: CancelSignal): AsyncGenerator<SseBatch> {
  let usage: AnthropicUsage = {};
  let finished = false;
  let producedChars = 0;
  let status: 'ok' | 'error' | 'canceled' = 'ok';
  let failure: string | null = null;
  // Until the last message_delta, the output count is the upstream's first guess: what reached
  // the client is the floor of what was produced.
  const settleProduced = () => {
    const counted = tokenUsageOf(usage);
    const outputTokens = finished ? counted.outputTokens : Math.max(counted.outputTokens, tokensOfLength(producedChars));
    return meter.settle({ ...counted, outputTokens }, status, failure);
  };
  /** The events of the piece being read: what a failure in the middle of it leaves to go out before the error. */
  let out: SseEvent[] = [];
  try {
    for await (const events of batches) {
      for (const { event, data } of events) {
        if (event === 'message_start') {
          const start = read(MessageStart, data);
          if (start) {
            usage = mergeUsage(usage, start.message.usage ?? {});
            // The model id put in place of the upstream's; the rest of the event as it was written.
            const upstreamModel = start.message.model;
            const spliced = typeof upstreamModel === 'string' ? spliceStringField(data, 'model', 2, upstreamModel, JSON.stringify(modelId)) : null;
            out.push({ event, data: spliced ?? JSON.stringify({ ...start, message: { ...start.message, model: modelId } }) });
            continue;
          }
        } else if (event === 'content_block_delta') {
          meter.firstToken();
          producedChars += writtenChars(data);
        } else if (event === 'message_delta') {
          const delta = read(MessageDelta, data);
          usage = mergeUsage(usage, delta?.usage ?? {});
          finished = true;
          if (delta) {
            // The usage is final here: settled now, so the event can say what was charged.
            const { chargedMicro } = await meter.settle(tokenUsageOf(usage), 'ok');
            out.push({ event, data: JSON.stringify({ ...delta, usage: { ...delta.usage, cost: microToCredits(chargedMicro) } }) });
            continue;
          }
        } else if (event === 'error') {
          status = 'error';
          failure = 'upstream_error';
          await settleProduced();
        }
        out.push({ event, data });
      }
      if (out.length > 0) yield out;
      out = [];
    }
  } catch (error) {
    status = signal.aborted ? 'canceled' : 'error';
    failure = signal.aborted ? CLIENT_CLOSED : errorCode(error);
    await settleProduced();
    // What the upstream wrote before the failure (a settlement that failed) still reaches the client.
    if (!signal.aborted) yield [...out, { event: 'error', data: JSON.stringify({ type: 'error', error: anthropicError(asApiError(error)) }) }];
  } finally {
    if (signal.aborted && status === 'ok') {
      status = 'canceled';
      failure = CLIENT_CLOSED;
    }
    await settleProduced();
  }
}

/** The Messages API of a target that speaks it (the caller checked that every target of the plan does). */
function nativeOf(target: ResolvedModel): NativeMessages {
  if (!target.adapter.messages) throw new Error(`${target.entry.id} does not speak the Messages API`);
  return target.adapter.messages;
}

/**
 * A Messages request relayed to upstreams that speak the Messages API, the first of its plan
 * that answers: held for the most it can cost on the dearest of them (its input bound at the
 * dearest price its cache breakpoints allow, and `max_tokens`, thinking included), sent as the
 * client sent it, and settled from the upstream's own usage. The answer names the target.
 */
export async function relayMessage(
  deps: MeterOptions,
  routing: Routing,
  plan: TargetPlan,
  request: { caller: Caller; body: MessagesBody; headers: IncomingHttpHeaders; requestId: string; signal: CancelSignal },
): Promise<Record<string, unknown> | SseReply> {
  const { caller, signal } = request;
  assertMessagesToolsPriced(request.body.tools);
  // Web searches are billed per call: the hold covers as many as the request can run.
  const { body, searches } = cappedMessagesSearches(request.body);
  const headers = protocolHeaders(request.headers);
  const [first, ...alternatives] = plan.targets.map(({ entry }) => ({
    entry,
    input: inputBoundOf((bounds) => estimateMessagesInputTokens(body, bounds), relayedBounds(entry, headers)),
    maxOutputTokens: body.max_tokens,
  }));
  if (!first) throw new Error('a plan has at least one target');
  const meter = await openMeter(deps, { caller, ...first, operation: 'messages.create', requestId: request.requestId, cacheWrites: cacheWritesOf(body), webSearches: searches, alternatives });
  const callOf = (entry: ModelEntry): MessagesCall => ({ model: entry.model, body, headers, signal });
  if (body.stream === true) {
    const { value, target } = await serveMetered(routing, plan, meter, signal, caller.answerHeader, (t) => firstEventOf(nativeOf(t).stream(callOf(t.entry))));
    return new SseReply(relayedEvents(value, meter, target.entry.id, signal));
  }
  const { value, target } = await serveMetered(routing, plan, meter, signal, caller.answerHeader, (t) => nativeOf(t).create(callOf(t.entry)));
  try {
    const { answer, usage } = value;
    const { chargedMicro } = await meter.settle(usage, 'ok');
    return { ...answer, model: target.entry.id, usage: { ...(answer.usage as object), cost: microToCredits(chargedMicro) } };
  } catch (error) {
    await meter.failed(error, signal);
    throw error;
  }
}

/** The upstream's own count of a request's input, for `POST /messages/count_tokens`. */
export async function countRelayed(
  native: NativeMessages,
  request: { entry: ModelEntry; body: Record<string, unknown>; headers: IncomingHttpHeaders; signal: CancelSignal },
): Promise<number> {
  return native.countTokens({ model: request.entry.model, body: request.body, headers: protocolHeaders(request.headers), signal: request.signal });
}
