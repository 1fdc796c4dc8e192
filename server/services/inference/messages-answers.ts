/**
 * Chat completions, whole and streamed, as Anthropic Messages API answers (the translated side
 * of `/messages`; messages-translate.ts does the requests).
 *
 * Decisions worth knowing:
 * - `finish_reason` stop → `end_turn`, length → `max_tokens`, tool_calls → `tool_use`,
 *   content_filter → `refusal`. A stop sequence reads `stop_sequence` with the string where the
 *   upstream names the one that matched (vLLM's `stop_reason`, SGLang's `matched_stop`); OpenAI
 *   itself never says, so its answers read `end_turn`.
 * - Reasoning text an OpenAI-compatible host sends beside the answer (`reasoning_content`,
 *   `reasoning`) comes first, as a `thinking` block with an empty `signature`: no upstream could
 *   verify one, and a client that sends the block back to a translated route has it dropped.
 * - Usage in Anthropic's convention: the upstream's cached prompt tokens are
 *   `cache_read_input_tokens` and are left out of `input_tokens`; nothing is written to a cache
 *   through the chat format (`cache_creation_input_tokens: 0`). Counts are integers, never null.
 * - Streams: `message_start` carries the input tokens as far as they are known when it is sent
 *   (the upstream's count if its first chunk has one, else the bound the request is held for);
 *   `message_delta` carries the upstream's final counts.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { MessageObject, MessagesStopReason } from '../../../src/contract/schemas/messages.js';
import { anthropicError } from '../../error-shapes.js';
import { ApiError } from '../../errors.js';
import type { SseEvent } from '../../streams.js';
import { matchedStopSequence, reasoningText } from '../../providers/openai/schemas.js';
import { tokenUsageOfChat } from '../../providers/openai/usage.js';
import type { ChatChunk, ChatCompletionJson, ChatUsage } from '../../providers/types.js';

type StopReason = z.output<typeof MessagesStopReason>;

const STOP_REASONS: Record<string, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export const stopReasonOf = (finishReason: string | null | undefined): StopReason =>
  (finishReason ? STOP_REASONS[finishReason] : undefined) ?? 'end_turn';

/** A choice's stop reason, and the stop sequence that ended it where the upstream says which. */
function stopOf(choice: (Parameters<typeof matchedStopSequence>[0] & { finish_reason: string | null }) | undefined) {
  const sequence = choice ? matchedStopSequence(choice) : null;
  return sequence !== null
    ? { stop_reason: 'stop_sequence' as const, stop_sequence: sequence }
    : { stop_reason: stopReasonOf(choice?.finish_reason), stop_sequence: null };
}

/** A chat usage in Anthropic's terms (see the top of this file). */
function messageUsage(usage: ChatUsage | null | undefined) {
  const tokens = usage ? tokenUsageOfChat(usage) : { inputTokens: 0, outputTokens: 0 };
  const cached = Math.min(tokens.cacheReadTokens ?? 0, tokens.inputTokens);
  return {
    input_tokens: tokens.inputTokens - cached,
    output_tokens: tokens.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    // What was charged, once settled (the chat usage carries it from the meter).
    ...(usage?.cost !== undefined ? { cost: usage.cost } : {}),
  };
}

/** `msg_…` from the completion's id (so one answer keeps one id), or a fresh one. */
export function messageId(completionId: string | undefined): string {
  const core = (completionId ?? '').replace(/^chatcmpl-/, '').replace(/[^A-Za-z0-9_-]/g, '');
  return `msg_${core || randomBytes(12).toString('hex')}`;
}

/**
 * A tool call's arguments as Anthropic's `input`. A model may write arguments that are not a
 * JSON object; they are passed on as the text they are rather than lost.
 */
export function toolInput(args: string): unknown {
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The block reasoning text comes back in; the signature is empty since nothing could verify it. */
const thinkingBlock = (thinking: string) => ({ type: 'thinking', thinking, signature: '' });

/** A finished chat completion as an Anthropic `message`. */
export function toMessage(completion: ChatCompletionJson): MessageObject {
  const choice = completion.choices[0];
  const content: MessageObject['content'] = [];
  const reasoning = choice ? reasoningText(choice.message) : '';
  if (reasoning !== '') content.push(thinkingBlock(reasoning));
  const text = choice?.message.content ?? '';
  if (text !== '') content.push({ type: 'text', text });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  }
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    ...stopOf(choice),
    usage: messageUsage(completion.usage),
  };
}

// ---------------------------------------------------------------------------------------------
// Streams

/** The error of a chat stream's error event, as the chat service writes it. */
export interface ChatStreamError {
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

const event = (type: string, data: Record<string, unknown>): SseEvent => ({ event: type, data: JSON.stringify({ type, ...data }) });

/** Anthropic's `event: error`, keeping the gateway's code and param beside its type. */
export function errorEvent(error: ChatStreamError): SseEvent {
  return event('error', { error: anthropicError(error) });
}

export interface MessageStreamOptions {
  /** The input tokens the request is held for: what `message_start` says until the upstream counts. */
  inputTokens?: number;
}

/**
 * Chat chunks in, Anthropic stream events out: `message_start` on the first chunk, one content
 * block per run of reasoning (`thinking`), per run of text and per tool call
 * (`content_block_start`, deltas, `content_block_stop`), and at the end `message_delta` with the
 * stop reason and the usage, then `message_stop`. Blocks follow one another, as Anthropic's do;
 * an upstream that interleaves the arguments of two tool calls cannot be told this way and fails
 * the stream.
 */
export function createMessageStreamTranslator(model: string, options: MessageStreamOptions = {}) {
  let started = false;
  let id = '';
  let nextIndex = 0;
  /** The block being streamed: its index and kind, and the chat tool call index when it is a tool_use. */
  let open: { index: number; kind: 'thinking' | 'text' | 'tool'; tool: number | null } | null = null;
  const toolsSeen = new Set<number>();
  let stop = stopOf(undefined);
  let usage: ChatUsage | null = null;

  function start(completionId?: string): SseEvent[] {
    if (started) return [];
    started = true;
    id = messageId(completionId);
    const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null };
    // LangChain, for one, reads a stream's input tokens from here only.
    const known = usage ? messageUsage(usage) : { ...messageUsage(null), input_tokens: options.inputTokens ?? 0 };
    return [event('message_start', { message: { ...message, usage: { ...known, output_tokens: 0 } } })];
  }

  function close(): SseEvent[] {
    if (!open) return [];
    const stopEvent = event('content_block_stop', { index: open.index });
    open = null;
    return [stopEvent];
  }

  function begin(block: Record<string, unknown>, kind: 'thinking' | 'text' | 'tool', tool: number | null): { events: SseEvent[]; index: number } {
    const events = close();
    const index = nextIndex++;
    open = { index, kind, tool };
    events.push(event('content_block_start', { index, content_block: block }));
    return { events, index };
  }

  /** A piece of reasoning or text: it goes on the open block of its kind, or opens one. */
  function piece(kind: 'thinking' | 'text', text: string): SseEvent[] {
    const current = open;
    const block = kind === 'thinking' ? thinkingBlock('') : { type: 'text', text: '' };
    const { events, index } = current?.kind === kind ? { events: [], index: current.index } : begin(block, kind, null);
    const delta = kind === 'thinking' ? { type: 'thinking_delta', thinking: text } : { type: 'text_delta', text };
    events.push(event('content_block_delta', { index, delta }));
    return events;
  }

  function toolCall(call: NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number]): SseEvent[] {
    let events: SseEvent[] = [];
    let index = open?.kind === 'tool' && open.tool === call.index ? open.index : null;
    if (index === null) {
      if (toolsSeen.has(call.index)) {
        const message = 'The upstream interleaved the arguments of two tool calls, which the Messages API cannot stream.';
        throw new ApiError(502, 'upstream_error', message, 'upstream_bad_response');
      }
      toolsSeen.add(call.index);
      const block = { type: 'tool_use', id: call.id ?? `toolu_${id.slice(4)}_${call.index}`, name: call.function?.name ?? '', input: {} };
      ({ events, index } = begin(block, 'tool', call.index));
    }
    const args = call.function?.arguments;
    if (args) events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args } }));
    return events;
  }

  return {
    /** The events for one chat chunk (often one, sometimes none). */
    chunk(chunk: ChatChunk): SseEvent[] {
      // Before message_start: an upstream that counts on its first chunk gives message_start its count.
      if (chunk.usage) usage = chunk.usage;
      const events = start(chunk.id);
      const choice = chunk.choices[0];
      if (!choice) return events;
      const reasoning = reasoningText(choice.delta);
      if (reasoning) events.push(...piece('thinking', reasoning));
      if (choice.delta.content) events.push(...piece('text', choice.delta.content));
      for (const call of choice.delta.tool_calls ?? []) events.push(...toolCall(call));
      if (choice.finish_reason) stop = stopOf(choice);
      return events;
    },
    /** The end of a finished stream. */
    done(): SseEvent[] {
      return [
        ...start(),
        ...close(),
        // Input tokens here too: the Anthropic SDKs take them from message_delta when present.
        event('message_delta', { delta: stop, usage: messageUsage(usage) }),
        event('message_stop', {}),
      ];
    },
  };
}
