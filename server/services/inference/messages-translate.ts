/**
 * The Anthropic Messages API ⇄ the gateway's chat completions, both ways, as pure functions. The
 * `/messages` front door is served by the chat service, so it is held, metered and recorded
 * exactly as a chat completion is.
 *
 * Decisions worth knowing:
 * - A model name without `/` is an Anthropic one: `claude-sonnet-4-5` is `anthropic/claude-sonnet-4-5`.
 * - `system` becomes one system message (text blocks joined with blank lines). A user turn's
 *   `tool_result` blocks become `tool` messages, placed before the rest of the turn, which stays
 *   one user message (text, images as `image_url`, PDFs as `file`). An assistant turn is one
 *   assistant message: its text joined, its `tool_use` blocks as `tool_calls` with the input as
 *   JSON text. A `tool_result` with `is_error` is marked `Error: ` (tool messages have no flag).
 * - Refused by name, not dropped: `top_k`, `thinking` other than disabled, images inside a tool
 *   result, `tool_choice` without tools or naming a tool not offered.
 * - `cache_control` is a caching hint and is ignored. `disable_parallel_tool_use` is
 *   `parallel_tool_calls: false`; `metadata.user_id` is `user`; `stop_sequences` is `stop`.
 * - Answers: `finish_reason` stop → `end_turn`, length → `max_tokens`, tool_calls → `tool_use`,
 *   content_filter → `refusal`. The chat format does not say which stop sequence ended an
 *   answer, so `stop_sequence` stays null and such an answer reads `end_turn`.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { MessageObject, MessagesStopReason } from '../../../src/contract/schemas/messages.js';
import { anthropicError } from '../../error-shapes.js';
import { ApiError, invalidRequest } from '../../errors.js';
import type { SseEvent } from '../../http/sse.js';
import type { ChatBody, ChatChunk, ChatCompletionJson } from '../../providers/types.js';
import type { MessagesMessage, TranslatableCountTokensBody, TranslatableMessagesBody } from './messages-translatable.js';

// ---------------------------------------------------------------------------------------------
// Request

/** What a request may hold: count_tokens has the conversation only, create the rest too. */
export type MessagesRequest = TranslatableCountTokensBody &
  Partial<Pick<TranslatableMessagesBody, 'max_tokens' | 'stream' | 'temperature' | 'top_p' | 'top_k' | 'stop_sequences' | 'metadata'>>;

type ChatMessage = ChatBody['messages'][number];
type UserPart = Exclude<Extract<ChatMessage, { role: 'user' }>['content'], string>[number];
type ToolCall = NonNullable<Extract<ChatMessage, { role: 'assistant' }>['tool_calls']>[number];

/** `claude-sonnet-4-5` → `anthropic/claude-sonnet-4-5`; `<provider>/<model>` stays as it is. */
export const resolveModelId = (model: string): string => (model.includes('/') ? model : `anthropic/${model}`);

const unsupported = (param: string, why: string) =>
  invalidRequest(`'${param}' is not supported through /api/v1/messages yet: ${why}. Leave it out.`, param, 'unsupported_parameter');

/** Fields with no equivalent in the chat format every model is served through. */
function refuseUntranslatable(request: MessagesRequest): void {
  if (request.top_k != null) throw unsupported('top_k', 'the chat format every model is served through has no top-k sampling');
  if (request.thinking != null && request.thinking.type !== 'disabled') {
    throw unsupported('thinking', 'extended thinking cannot be carried through the chat format; only {"type":"disabled"} is accepted');
  }
}

const joinText = (blocks: readonly { text: string }[], separator = '') => blocks.map((b) => b.text).join(separator);

type UserBlock = Exclude<Extract<MessagesMessage, { role: 'user' }>['content'], string>[number];
type ToolResult = Extract<UserBlock, { type: 'tool_result' }>;

function toolResultContent(block: ToolResult, at: string): Extract<ChatMessage, { role: 'tool' }>['content'] {
  const content = block.content ?? '';
  const mark = block.is_error === true ? 'Error: ' : '';
  if (typeof content === 'string') return `${mark}${content}`;
  const image = content.findIndex((part) => part.type === 'image');
  if (image >= 0) {
    throw invalidRequest(
      `${at}.content[${image}]: an image inside a tool result cannot be carried through /api/v1/messages yet ` +
        '(tool messages take text only); send it as an image block of the user turn instead.',
      `${at}.content[${image}]`,
      'unsupported_parameter',
    );
  }
  const parts = content.flatMap((part) => (part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : []));
  return mark ? [{ type: 'text', text: mark }, ...parts] : parts;
}

function userMessages(content: Extract<MessagesMessage, { role: 'user' }>['content'], at: string): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const tools: ChatMessage[] = [];
  const parts: UserPart[] = [];
  content.forEach((block, j) => {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        return;
      case 'image': {
        const { source } = block;
        const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
        parts.push({ type: 'image_url', image_url: { url } });
        return;
      }
      case 'document':
        parts.push({ type: 'file', file: { file_data: `data:${block.source.media_type};base64,${block.source.data}` } });
        return;
      case 'tool_result':
        // The chat format wants tool results right after the assistant turn that called them.
        tools.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultContent(block, `${at}.content[${j}]`) });
        return;
    }
  });
  return parts.length > 0 ? [...tools, { role: 'user', content: parts }] : tools;
}

function assistantMessage(content: Extract<MessagesMessage, { role: 'assistant' }>['content']): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const text = joinText(content.flatMap((block) => (block.type === 'text' ? [block] : [])));
  const calls: ToolCall[] = content.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }] : [],
  );
  if (calls.length === 0) return { role: 'assistant', content: text };
  return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls };
}

function toolChoice(request: MessagesRequest): Pick<ChatBody, 'tool_choice' | 'parallel_tool_calls'> {
  const choice = request.tool_choice;
  if (!choice) return {};
  const offered = (request.tools ?? []).map((tool) => tool.name);
  // As Anthropic does: a choice among no tools is a mistake worth saying.
  if (offered.length === 0) throw invalidRequest('tool_choice may only be given together with tools.', 'tool_choice');
  if (choice.type === 'none') return { tool_choice: 'none' };
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  if (choice.type === 'auto') return { tool_choice: 'auto', ...parallel };
  if (choice.type === 'any') return { tool_choice: 'required', ...parallel };
  if (!offered.includes(choice.name)) {
    throw invalidRequest(`tool_choice.name: the tool '${choice.name}' is not among the tools offered (${offered.join(', ')}).`, 'tool_choice.name');
  }
  return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel };
}

/** The chat completion request for a Messages API request, for the model `modelId` (`<provider>/<model>`). */
export function toChatBody(request: MessagesRequest, modelId: string): ChatBody {
  refuseUntranslatable(request);
  const messages: ChatMessage[] = [];
  const system = typeof request.system === 'string' ? request.system : joinText(request.system ?? [], '\n\n');
  if (system !== '') messages.push({ role: 'system', content: system });
  request.messages.forEach((message, i) => {
    if (message.role === 'user') messages.push(...userMessages(message.content, `messages[${i}]`));
    else messages.push(assistantMessage(message.content));
  });
  const body: ChatBody = { model: modelId, messages, ...toolChoice(request) };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.input_schema,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
  }
  if (request.max_tokens !== undefined) body.max_tokens = request.max_tokens;
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.stop_sequences && request.stop_sequences.length > 0) body.stop = request.stop_sequences;
  if (request.metadata?.user_id != null) body.user = request.metadata.user_id;
  if (request.stream === true) {
    body.stream = true;
    // Real token counts for message_delta, instead of the gateway's estimate.
    body.stream_options = { include_usage: true };
  }
  return body;
}

// ---------------------------------------------------------------------------------------------
// Answers

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

/** A finished chat completion as an Anthropic `message`. */
export function toMessage(completion: ChatCompletionJson): MessageObject {
  const choice = completion.choices[0];
  const content: MessageObject['content'] = [];
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
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: {
      input_tokens: completion.usage?.prompt_tokens ?? 0,
      output_tokens: completion.usage?.completion_tokens ?? 0,
      // Not reported through the chat format; null as Anthropic says "none".
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    },
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

/**
 * Chat chunks in, Anthropic stream events out: `message_start` on the first chunk, one content
 * block per run of text and per tool call (`content_block_start`, deltas, `content_block_stop`),
 * and at the end `message_delta` with the stop reason and the usage, then `message_stop`. Blocks
 * follow one another, as Anthropic's do; an upstream that interleaves the arguments of two tool
 * calls cannot be told this way and fails the stream.
 */
export function createMessageStreamTranslator(model: string) {
  let started = false;
  let id = '';
  let nextIndex = 0;
  /** The block being streamed: its index, and the chat tool call index when it is a tool_use. */
  let open: { index: number; tool: number | null } | null = null;
  const toolsSeen = new Set<number>();
  let stopReason: StopReason = 'end_turn';
  let usage = { input_tokens: 0, output_tokens: 0 };

  function start(completionId?: string): SseEvent[] {
    if (started) return [];
    started = true;
    id = messageId(completionId);
    const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null };
    // Input tokens are known only at the end (usage comes last): 0 here, the count in message_delta.
    return [event('message_start', { message: { ...message, usage: { input_tokens: 0, output_tokens: 0 } } })];
  }

  function close(): SseEvent[] {
    if (!open) return [];
    const stop = event('content_block_stop', { index: open.index });
    open = null;
    return [stop];
  }

  function begin(block: Record<string, unknown>, tool: number | null): { events: SseEvent[]; index: number } {
    const events = close();
    const index = nextIndex++;
    open = { index, tool };
    events.push(event('content_block_start', { index, content_block: block }));
    return { events, index };
  }

  function text(piece: string): SseEvent[] {
    const current = open;
    const { events, index } = current && current.tool === null ? { events: [], index: current.index } : begin({ type: 'text', text: '' }, null);
    events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    return events;
  }

  function toolCall(call: NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>[number]): SseEvent[] {
    let events: SseEvent[] = [];
    let index = open?.tool === call.index ? open.index : null;
    if (index === null) {
      if (toolsSeen.has(call.index)) {
        const message = 'The upstream interleaved the arguments of two tool calls, which the Messages API cannot stream.';
        throw new ApiError(502, 'upstream_error', message, 'upstream_bad_response');
      }
      toolsSeen.add(call.index);
      const block = { type: 'tool_use', id: call.id ?? `toolu_${id.slice(4)}_${call.index}`, name: call.function?.name ?? '', input: {} };
      ({ events, index } = begin(block, call.index));
    }
    const args = call.function?.arguments;
    if (args) events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args } }));
    return events;
  }

  return {
    /** The events for one chat chunk (often one, sometimes none). */
    chunk(chunk: ChatChunk): SseEvent[] {
      const events = start(chunk.id);
      if (chunk.usage) usage = { input_tokens: chunk.usage.prompt_tokens, output_tokens: chunk.usage.completion_tokens };
      const choice = chunk.choices[0];
      if (!choice) return events;
      if (choice.delta.content) events.push(...text(choice.delta.content));
      for (const call of choice.delta.tool_calls ?? []) events.push(...toolCall(call));
      if (choice.finish_reason) stopReason = stopReasonOf(choice.finish_reason);
      return events;
    },
    /** The end of a finished stream. */
    done(): SseEvent[] {
      return [
        ...start(),
        ...close(),
        // Input tokens here too: the Anthropic SDKs take them from message_delta when present.
        event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage }),
        event('message_stop', {}),
      ];
    },
  };
}
