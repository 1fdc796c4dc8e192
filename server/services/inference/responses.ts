import type { z } from 'zod';
import type { ResponseObject } from '../../../src/contract/schemas/inference.js';
import type { InputItemsQuery, ResponseGetQuery } from '../../../src/contract/schemas/responses.js';
import { conflict, invalidRequest, notFound } from '../../errors.js';
import { SseReply, type SseEvent } from '../../streams.js';
import { tokenUsageOfResponse } from '../../providers/openai/usage.js';
import type { ProviderRegistry, ResolvedModel } from '../../providers/registry.js';
import { boundsOf, estimateChatInputTokens, estimateResponsesInputTokens, inputBoundOf, tokensOfLength, writtenWeight, type InputBound } from '../../providers/tokens.js';
import type { ProviderAdapter, ResponseStreamEvent, TokenUsage } from '../../providers/types.js';
import { microToCredits } from '../../store/money.js';
import type { ResponseOwner, StoredResponse } from '../../store/types.js';
import type { Caller } from './caller.js';
import { rewriteChunks, rewriteCompletion } from './image-model.js';
import { asApiError, meteredChunks } from './metered-stream.js';
import { openMeter, type Meter, type MeterOptions } from './meter.js';
import { pageOfInputItems } from './responses-items.js';
import { routingOf, type Routing, type TargetPlan } from './routing/runner.js';
import { firstEventOf, serveMetered, type AnswerHeader } from './routing/served.js';
import {
  chunksToEvents,
  completionToResponse,
  responseObject,
  toChatBody,
  type ResponseMeta,
  type ResponseRequest,
} from './responses-translate.js';
import { withOutputLimit } from './output-limit.js';
import { assertToolsPriced } from './unpriced-tools.js';
import { randomId, timeOrderedId } from '../../ids.js';
import { cappedResponsesSearches } from './web-searches.js';
import type { CancelSignal } from '../../cancellation.js';

/** How often a background response checks whether another instance cancelled it. */
const CANCEL_WATCH_MS = 500;
/** The events after which a response's stream has nothing more to say. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

type Json = Record<string, unknown>;
/** A response object; bodies from the store and from native upstreams are checked where they enter. */
type ResponseJson = z.output<typeof ResponseObject>;

/** How long a response can be read back with GET /responses/{id}. */
export const RESPONSE_RETENTION_MS = 24 * 60 * 60 * 1000;
const ACTIVE = ['queued', 'in_progress'];

interface Prepared {
  meta: ResponseMeta;
  /** The client's own previous_response_id (svc's id), echoed as sent whatever went upstream. */
  previousResponseId: string | null;
  /** The input items this response answers, previous turns included (kept for the next turn). */
  input: Json[];
  meter: Meter;
  /** The targets to try (one for a model alone), each with the request as it would go to it. */
  plan: TargetPlan;
  options: Map<string, TargetRequest>;
  /** The target being tried, then the one that answered (`bind`). */
  adapter: ProviderAdapter;
  upstreamModel: string;
  inputBound: InputBound;
  maxOutputTokens: number;
}

/** The request as it goes to one target (its provider decides how the conversation continues), and its bounds. */
interface TargetRequest {
  request: ResponseRequest;
  inputBound: InputBound;
  maxOutputTokens: number;
}

/** Points the prepared response at a target: the one tried, and in the end the one that answered. */
function bind(p: Prepared, target: ResolvedModel): void {
  const option = p.options.get(target.entry.id);
  if (!option) throw new Error(`no request prepared for ${target.entry.id}`);
  p.adapter = target.adapter;
  p.upstreamModel = target.entry.model;
  p.inputBound = option.inputBound;
  p.maxOutputTokens = option.maxOutputTokens;
  p.meta.model = target.entry.id;
  p.meta.request = option.request;
}

/** What an upstream with its own Responses API receives: the client's body, our fields removed, its web searches and output capped as held. */
function nativeBody(request: ResponseRequest, upstreamModel: string, maxOutputTokens: number): Json {
  const { image_model: _image, messages, thinking, background: _background, stream: _stream, ...rest } = request;
  const effort = rest.reasoning?.effort ?? (thinking?.type === 'enabled' ? 'medium' : undefined);
  return {
    ...cappedResponsesSearches(rest).body,
    model: upstreamModel,
    // The output limit the hold covers, when the client named none.
    max_output_tokens: rest.max_output_tokens ?? maxOutputTokens,
    ...(messages ? { input: messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content ?? '' })) } : {}),
    ...(effort ? { reasoning: { ...rest.reasoning, effort } } : {}),
  };
}

/** A response object as the client sees it: our id and model, and the previous_response_id it sent. */
const asSent = <T extends Json>(p: Prepared, body: T) => ({ ...body, id: p.meta.id, model: p.meta.model, previous_response_id: p.previousResponseId });

/** Settles when the run it belongs to sends its next event or ends: what followers of a stream wait on. */
class Ticker {
  private wake: () => void = () => undefined;
  next: Promise<void> = this.renew();
  private renew() {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }
  tick() {
    const wake = this.wake;
    this.next = this.renew();
    wake();
  }
}

/** A background response running on this instance. */
interface BackgroundRun {
  controller: AbortController;
  ticker: Ticker;
  done: Promise<void>;
}

/** A native response whose usage carries what was charged for it (`cost`, credits, as on chat completions). */
const withCost = (response: Json, chargedMicro: number): Json =>
  response.usage && typeof response.usage === 'object' ? { ...response, usage: { ...response.usage, cost: microToCredits(chargedMicro) } } : response;

/** The body of a response that a stop of the server cut short. */
export const interrupted = (code: string, message: string) => (body: Json) => ({ ...body, status: 'failed', error: { code, message } });

export function createResponsesService(deps: MeterOptions & { registry: ProviderRegistry; routing?: Routing }) {
  const { store, clock } = deps;
  const routing = deps.routing ?? routingOf(deps);
  const background = new Map<string, BackgroundRun>();
  // Whose responses the caller reaches: its own, in its mode (a test key never sees a live response, nor the reverse).
  const owner = (caller: Caller): ResponseOwner => ({ appUuid: caller.appUuid, address: caller.address, livemode: !caller.isTest });

  async function save(caller: Caller, body: Json, p: Prepared, upstreamId: string | null = null) {
    const now = clock.now();
    await store.responses.put({
      id: String(body.id),
      ...owner(caller),
      status: String(body.status),
      body,
      input: p.input,
      upstreamId,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + RESPONSE_RETENTION_MS).toISOString(),
    });
  }

  /** The caller's kept response; a 404 alike for another caller's, another mode's and an expired one. */
  async function kept(caller: Caller, id: string): Promise<StoredResponse> {
    const stored = await store.responses.get(owner(caller), id, clock.now().toISOString());
    if (!stored) throw notFound(`No response ${id} (responses are kept for 24 hours).`, 'response_not_found');
    return stored;
  }

  /** Input items as a list; `item_reference`s replaced by the items they name (of the caller's kept responses). */
  async function inputItems(caller: Caller, request: ResponseRequest): Promise<Json[]> {
    const input = request.input ?? [];
    const items = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : (input as Json[]);
    const now = clock.now().toISOString();
    return Promise.all(
      items.map(async (item, i) => {
        if (item.type !== 'item_reference') return item;
        const found = typeof item.id === 'string' ? await store.responses.findItem(owner(caller), item.id, now) : null;
        if (!found) throw invalidRequest(`No item '${String(item.id)}' in your responses of the last 24 hours.`, `input[${i}].id`, 'item_not_found');
        return found;
      }),
    );
  }

  /**
   * The request as it goes out, and the conversation it continues. `previous_response_id` maps
   * to the upstream's own id when the previous response came from the same upstream's Responses
   * API; otherwise the conversation is rebuilt from what was kept: its input, then its output.
   */
  async function conversationOf(caller: Caller, request: ResponseRequest, provider: string, native: boolean) {
    const items = request.messages ? [] : await inputItems(caller, request);
    const resolved = { ...request, ...(request.messages ? {} : { input: items }) };
    if (!request.previous_response_id) return { request: resolved, history: [] as Json[], items };
    const previous = await store.responses.get(owner(caller), request.previous_response_id, clock.now().toISOString());
    if (!previous) {
      throw notFound(`No response ${request.previous_response_id} to continue (responses are kept for 24 hours).`, 'response_not_found', 'previous_response_id');
    }
    const output = (Array.isArray(previous.body.output) ? (previous.body.output as Json[]) : []).filter((item) => item.type === 'message' || item.type === 'function_call');
    const history = [...previous.input, ...output];
    const sameUpstream = native && previous.upstreamId !== null && String(previous.body.model).startsWith(`${provider}/`);
    if (sameUpstream) return { request: { ...resolved, previous_response_id: previous.upstreamId }, history, items };
    return { request: { ...resolved, previous_response_id: undefined, input: [...history, ...items] }, history, items };
  }

  /** Resolves the model, checks the input, and holds the most the response can cost. */
  async function prepare(caller: Caller, { models: fallbacks, ...original }: ResponseRequest, requestId: string): Promise<Prepared> {
    // Web searches are billed per call: the hold covers as many as the request can run (`nativeBody` caps them).
    const { searches } = cappedResponsesSearches(original);
    assertToolsPriced(original.tools);
    const serviceTier = typeof original.service_tier === 'string' ? original.service_tier : null;
    const plan = routing.plan(deps.registry.requested([original.model, ...(fallbacks ?? [])], 'responses'), original.stream ? 'stream' : 'answer');
    const options = new Map<string, TargetRequest>();
    let kept: Json[] = [];
    for (const { entry, adapter } of plan.targets) {
      const { request, history, items } = await conversationOf(caller, original, entry.provider, adapter.responses !== undefined);
      kept = [...history, ...items];
      // An upstream continuing from its own id reads the whole history too: the hold counts it.
      const heldInput = request.previous_response_id ? { ...request, input: kept } : request;
      const inputBound = adapter.responses
        ? inputBoundOf((bounds) => estimateResponsesInputTokens(heldInput, bounds), boundsOf(entry))
        : inputBoundOf((bounds) => estimateChatInputTokens(toChatBody(request), bounds), boundsOf(entry));
      options.set(entry.id, { request, inputBound, maxOutputTokens: request.max_output_tokens ?? entry.defaultMaxOutputTokens });
    }
    const [first, ...others] = plan.targets.map((target) => ({ entry: target.entry, ...(options.get(target.entry.id) as TargetRequest) }));
    if (!first) throw new Error('a plan has at least one target');
    const alternatives = others.map(({ entry, inputBound, maxOutputTokens }) => ({ entry, input: inputBound, maxOutputTokens }));
    const meter = await openMeter(deps, { caller, entry: first.entry, operation: 'responses', requestId, input: first.inputBound, maxOutputTokens: first.maxOutputTokens, serviceTier, webSearches: searches, alternatives });
    const now = clock.now().getTime();
    // Stored responses are keyed by id: in time order, each goes in at the right edge of the key.
    const meta = { id: timeOrderedId('resp', now), model: first.entry.id, createdAt: Math.floor(now / 1000), request: first.request };
    // Every kept input item has an id, so that input_items and item_reference can name it.
    const input = kept.map((item) => (typeof item.id === 'string' ? item : { ...item, id: randomId('msg') }));
    const p: Prepared = { meta, previousResponseId: original.previous_response_id ?? null, input, meter, plan, options, adapter: plan.targets[0]!.adapter, upstreamModel: '', inputBound: first.inputBound, maxOutputTokens: 0 };
    bind(p, plan.targets[0]!);
    return p;
  }

  /**
   * Runs a response to its end on the first target that answers and settles it; with the
   * upstream's own id when it has one. `answerHeader` names the targets tried (not for a
   * background response, whose answer has gone).
   */
  async function complete(p: Prepared, signal: CancelSignal, answerHeader?: AnswerHeader): Promise<{ result: ResponseJson; upstreamId: string | null }> {
    const { value } = await serveMetered(routing, p.plan, p.meter, signal, answerHeader, async (target) => {
      bind(p, target);
      const native = target.adapter.responses;
      if (native) return { kind: 'native' as const, result: await native.create({ model: p.upstreamModel, body: nativeBody(p.meta.request, p.upstreamModel, p.maxOutputTokens), signal }) };
      return { kind: 'chat' as const, ...(await target.adapter.chat({ model: p.upstreamModel, body: withOutputLimit(toChatBody(p.meta.request), p.maxOutputTokens, p.upstreamModel), maxOutputTokens: p.maxOutputTokens, signal })) };
    });
    const { meta, meter } = p;
    try {
      if (value.kind === 'native') {
        const { result } = value;
        const { chargedMicro } = await meter.settle(tokenUsageOfResponse(result) ?? { inputTokens: p.inputBound.exact(), outputTokens: 0 }, 'ok');
        return { result: asSent(p, withCost(result, chargedMicro) as ResponseJson), upstreamId: typeof result.id === 'string' ? result.id : null };
      }
      const { completion, usage } = value;
      const { chargedMicro } = await meter.settle(usage, 'ok');
      const answer = completionToResponse(meta, rewriteCompletion(completion, meta.request.image_model), usage, microToCredits(chargedMicro));
      return { result: asSent(p, answer), upstreamId: null };
    } catch (error) {
      await meter.failed(error, signal);
      throw error;
    }
  }

  /** A native stream, metered from its final response (the upstream's own id noted). */
  async function* nativeEvents(
    p: Prepared,
    stream: AsyncIterable<ResponseStreamEvent>,
    signal: CancelSignal,
    upstream: { id: string | null },
  ): AsyncGenerator<ResponseStreamEvent> {
    let usage: TokenUsage | null = null;
    let producedChars = 0;
    let status: 'ok' | 'error' | 'canceled' = 'ok';
    const settleProduced = () => p.meter.settle(usage ?? { inputTokens: p.inputBound.exact(), outputTokens: tokensOfLength(producedChars) }, status);
    try {
      for await (const event of stream) {
        const { delta, response } = event.data;
        if (typeof delta === 'string') {
          p.meter.firstToken();
          producedChars += writtenWeight(delta);
        }
        // A failure is settled before it goes out: whoever reads the end of the stream finds the charge.
        if (event.event === 'error' || event.event === 'response.failed') {
          status = 'error';
          if (response && typeof response === 'object') usage = tokenUsageOfResponse(response as Json) ?? usage;
          await settleProduced();
        }
        // Most events (the deltas) go on as they came; only a response object is read and rewritten.
        if (!response || typeof response !== 'object') {
          yield event;
          continue;
        }
        const data = { ...event.data };
        const object = response as Json;
        if (typeof object.id === 'string') upstream.id = object.id;
        usage = tokenUsageOfResponse(object) ?? usage;
        // The final response is settled before it is passed on, so its usage carries the cost.
        if (usage && (event.event === 'response.completed' || event.event === 'response.incomplete')) {
          const { chargedMicro } = await p.meter.settle(usage, 'ok');
          data.response = withCost(object, chargedMicro);
        }
        yield { event: event.event, data };
      }
    } catch (error) {
      status = signal.aborted ? 'canceled' : 'error';
      throw error;
    } finally {
      if (signal.aborted && status === 'ok') status = 'canceled';
      await settleProduced();
    }
  }

  /**
   * The typed events of a streamed response, native or translated, from the first target whose
   * stream starts (before that, a failing target gives way to the next), with its response
   * objects as the client sees them.
   */
  async function eventsOf(p: Prepared, signal: CancelSignal, upstream: { id: string | null }, answerHeader?: AnswerHeader): Promise<AsyncIterable<ResponseStreamEvent>> {
    const { value } = await serveMetered(routing, p.plan, p.meter, signal, answerHeader, async (target) => {
      bind(p, target);
      const native = target.adapter.responses;
      if (native) return { kind: 'native' as const, events: await firstEventOf(native.stream({ model: p.upstreamModel, body: { ...nativeBody(p.meta.request, p.upstreamModel, p.maxOutputTokens), stream: true }, signal })) };
      const chat = { model: p.upstreamModel, body: withOutputLimit(toChatBody(p.meta.request), p.maxOutputTokens, p.upstreamModel), maxOutputTokens: p.maxOutputTokens, signal };
      return { kind: 'chat' as const, chunks: await firstEventOf(rewriteChunks(target.adapter.chatStream(chat), p.meta.request.image_model)) };
    });
    const events = value.kind === 'native' ? nativeEvents(p, value.events, signal, upstream) : chunksToEvents(p.meta, meteredChunks(value.chunks, p.meter, p.inputBound, signal));
    return asSentEvents(p, events);
  }

  /** Events with their response objects as the client sees them. */
  async function* asSentEvents(p: Prepared, events: AsyncIterable<ResponseStreamEvent>): AsyncGenerator<ResponseStreamEvent> {
    for await (const event of events) {
      const response = event.data.response as Json | undefined;
      yield response ? { event: event.event, data: { ...event.data, response: asSent(p, response) } } : event;
    }
  }

  /** Typed events as SSE; the final response is kept for GET; a failure is one `error` event. */
  async function* sse(caller: Caller, p: Prepared, events: AsyncIterable<ResponseStreamEvent>, signal: CancelSignal, upstream: { id: string | null }): AsyncGenerator<SseEvent> {
    let sequence = 0;
    try {
      for await (const event of events) {
        sequence = typeof event.data.sequence_number === 'number' ? event.data.sequence_number + 1 : sequence + 1;
        if (event.event === 'response.completed' || event.event === 'response.incomplete') await save(caller, event.data.response as Json, p, upstream.id);
        yield { event: event.event, data: event.raw ?? JSON.stringify(event.data) };
      }
    } catch (error) {
      if (signal.aborted) return;
      const { message, code, param } = asApiError(error);
      yield { event: 'error', data: JSON.stringify({ type: 'error', code, message, param, sequence_number: sequence }) };
    }
  }

  /**
   * Runs a background response detached from the request that started it (whose client may go):
   * `work` takes it from in_progress to its end. A cancel stops it; a failure marks it failed.
   */
  function detach(caller: Caller, p: Prepared, queued: ResponseJson, work: (signal: CancelSignal, ticker: Ticker) => Promise<void>) {
    const controller = new AbortController();
    const ticker = new Ticker();
    // A cancel may come through another instance over the same database: it writes the status,
    // and this instance, which runs the response, sees it here and stops the upstream call.
    const watch = setInterval(() => {
      void store.responses
        .get(owner(caller), p.meta.id, clock.now().toISOString())
        .then((stored) => {
          if (!stored || stored.status === 'cancelled') controller.abort();
        })
        .catch(() => undefined);
    }, CANCEL_WATCH_MS);
    watch.unref();
    const done = (async () => {
      try {
        await store.responses.transition(p.meta.id, ['queued'], 'in_progress', { ...queued, status: 'in_progress' });
        await work(controller.signal, ticker);
      } catch (error) {
        if (controller.signal.aborted) return; // cancelled or deleted: nothing is left to write
        const { message, code } = asApiError(error);
        await store.responses
          .transition(p.meta.id, ACTIVE, 'failed', asSent(p, responseObject(p.meta, { status: 'failed', error: { code: code ?? 'upstream_error', message } })))
          .catch(() => undefined);
      } finally {
        clearInterval(watch);
        background.delete(p.meta.id);
        ticker.tick(); // followers of its stream read what is left and end
      }
    })();
    background.set(p.meta.id, { controller, ticker, done });
  }

  /** Starts a background response: answers queued at once, runs detached, can be cancelled. */
  async function startBackground(caller: Caller, p: Prepared): Promise<ResponseJson> {
    const queued = asSent(p, responseObject(p.meta, { status: 'queued' }));
    await save(caller, queued, p);
    detach(caller, p, queued, async (signal) => {
      const { result, upstreamId } = await complete(p, signal);
      await store.responses.transition(p.meta.id, ['in_progress'], String(result.status), result, upstreamId);
    });
    return queued;
  }

  /**
   * Starts a background response that streams: its events are written to the store as it runs
   * (numbered from 0, `response.created` first), so that whoever follows it, now or after a
   * reconnect, reads the same sequence. The response's final status is written before its final
   * event, so a follower that has seen the end reads the finished response.
   */
  async function startBackgroundStream(caller: Caller, p: Prepared): Promise<void> {
    const queued = asSent(p, responseObject(p.meta, { status: 'queued' }));
    await save(caller, queued, p);
    let sequence = 0;
    const append = async (event: string, data: Json, ticker?: Ticker) => {
      const sequenceNumber = sequence++;
      await store.responses.appendEvent(p.meta.id, { sequenceNumber, event, data: JSON.stringify({ ...data, type: event, sequence_number: sequenceNumber }) });
      ticker?.tick();
    };
    await append('response.created', { response: queued });
    detach(caller, p, queued, async (signal, ticker) => {
      const upstream = { id: null as string | null };
      try {
        for await (const { event, data } of await eventsOf(p, signal, upstream)) {
          if (event === 'response.created') continue; // ours, with status queued, went first
          const response = data.response as ResponseJson | undefined;
          if (response && FINAL_EVENTS.has(event)) await store.responses.transition(p.meta.id, ACTIVE, response.status, response, upstream.id);
          await append(event, data, ticker);
        }
      } catch (error) {
        if (signal.aborted) throw error;
        const { message, code, param } = asApiError(error);
        await append('error', { code, message, param }, ticker);
        throw error;
      }
    });
  }

  /**
   * The events of a background stream after `after`, then the live ones until the response ends.
   * Live events come from the run on this instance; a response run by another instance (several
   * instances over PostgreSQL) is answered with the events stored so far.
   */
  async function* follow(id: string, after: number, closed: CancelSignal): AsyncGenerator<SseEvent> {
    const stop = new Promise<void>((resolve) => closed.addEventListener('abort', () => resolve(), { once: true }));
    let last = after;
    for (;;) {
      // Taken before the read: an event written between the read and the wait still wakes us.
      const next = background.get(id)?.ticker.next;
      const events = await store.responses.eventsAfter(id, last);
      for (const event of events) {
        last = event.sequenceNumber;
        yield { event: event.event, data: event.data };
        if (FINAL_EVENTS.has(event.event)) return;
      }
      if (!next || closed.aborted) return;
      if (events.length === 0) await Promise.race([next, stop]);
    }
  }

  return {
    async create(caller: Caller, request: ResponseRequest, requestId: string, signal: CancelSignal) {
      await store.responses.deleteExpired(clock.now().toISOString());
      const p = await prepare(caller, request, requestId);
      if (request.background && request.stream) {
        await startBackgroundStream(caller, p);
        // This client follows the run; the run does not depend on it staying.
        return new SseReply(follow(p.meta.id, -1, signal));
      }
      if (request.background) return startBackground(caller, p);
      if (request.stream) {
        const upstream = { id: null as string | null };
        return new SseReply(sse(caller, p, await eventsOf(p, signal, upstream, caller.answerHeader), signal, upstream));
      }
      const { result, upstreamId } = await complete(p, signal, caller.answerHeader);
      await save(caller, result, p, upstreamId);
      return result;
    },

    /** The input items a response answered, previous turns included, as OpenAI lists them. */
    async inputItems(caller: Caller, id: string, query: z.output<typeof InputItemsQuery>) {
      const stored = await kept(caller, id);
      return pageOfInputItems(stored.input, query);
    },

    /** The kept response; with stream=true, the events of a background stream after starting_after, then the live ones. */
    async get(caller: Caller, id: string, query: z.output<typeof ResponseGetQuery>, closed: CancelSignal) {
      const stored = await kept(caller, id);
      if (!query.stream) return stored.body as ResponseJson;
      const [first] = await store.responses.eventsAfter(id, -1);
      if (!first) {
        throw invalidRequest(`Response ${id} was not created with background and stream, so it has no events to stream; read it without stream.`, 'stream', 'response_not_streamable');
      }
      return new SseReply(follow(id, query.starting_after ?? -1, closed));
    },

    /** Deletes the caller's response; a run of it on this instance stops (one on another sees it gone). */
    async delete(caller: Caller, id: string) {
      if (!(await store.responses.delete(owner(caller), id))) throw notFound(`No response ${id} (responses are kept for 24 hours).`, 'response_not_found');
      background.get(id)?.controller.abort();
      return { id, object: 'response', deleted: true as const };
    },

    async cancel(caller: Caller, id: string) {
      const stored = await kept(caller, id);
      if (stored.status === 'cancelled') return stored.body as ResponseJson;
      const cancelled = { ...stored.body, status: 'cancelled' } as ResponseJson;
      if (!(await store.responses.transition(id, ACTIVE, 'cancelled', cancelled))) {
        throw conflict(`Response ${id} is already ${stored.status === 'queued' || stored.status === 'in_progress' ? 'finished' : stored.status}; only a queued or running response can be cancelled.`, 'response_not_cancellable');
      }
      background.get(id)?.controller.abort();
      return cancelled;
    },

    /** At shutdown: stops background responses, waits until each has settled, marks them failed. */
    async shutdown() {
      const running = [...background.values()];
      for (const task of running) task.controller.abort();
      await Promise.all(running.map((task) => task.done));
      await store.responses.failInterrupted(interrupted('server_shutdown', 'The server shut down while this response was running.'));
    },
  };
}
