import { randomId } from '../../ids.js';
import type { z } from 'zod';
import { ResponseBody } from '../../../src/contract/schemas/inference.js';
import { invalidRequest } from '../../errors.js';
import { responsesUsageOf, tokenUsageOfChat } from '../../providers/openai/usage.js';
import type { ChatBody, ChatChunk, ChatCompletionJson, ResponseStreamEvent, TokenUsage } from '../../providers/types.js';
import { effortOfBudget } from './reasoning-effort.js';

/**
 * The Responses API on top of chat completions, for upstreams that lack it: requests become
 * chat requests, and answers (whole or streamed) become response objects and typed events.
 */

export type ResponseRequest = z.output<typeof ResponseBody>;
type ChatMessage = ChatBody['messages'][number];
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `input_text`/`output_text` parts to text, `input_image` to an image part. */
function contentOf(content: unknown, param: string): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest('content must be a string or a list of parts.', param);
  return content.map((part, i) => {
    if (!isObject(part)) throw invalidRequest('each content part must be an object.', `${param}[${i}]`);
    if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') return { type: 'text', text: String(part.text ?? '') };
    if (part.type === 'refusal') return { type: 'text', text: String(part.refusal ?? '') };
    if (part.type === 'input_image' && typeof part.image_url === 'string') {
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    }
    throw invalidRequest(`content part type '${String(part.type)}' is not supported here.`, `${param}[${i}].type`);
  });
}

/** Input items to chat messages: messages, function calls and their outputs. */
function messagesOf(input: string | Json[]): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  input.forEach((item, i) => {
    const param = `input[${i}]`;
    const type = item.type ?? (item.role ? 'message' : undefined);
    if (type === 'message') {
      const role = item.role;
      if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
        throw invalidRequest(`role must be user, assistant, system or developer.`, `${param}.role`);
      }
      const content = contentOf(item.content, `${param}.content`);
      messages.push({ role, content } as ChatMessage);
    } else if (type === 'function_call') {
      const call = { id: String(item.call_id ?? item.id ?? ''), type: 'function' as const, function: { name: String(item.name ?? ''), arguments: String(item.arguments ?? '{}') } };
      const last = messages.at(-1);
      // Calls of one turn belong to one assistant message.
      if (last?.role === 'assistant' && last.tool_calls && !last.content) last.tool_calls.push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      messages.push({ role: 'tool', tool_call_id: String(item.call_id ?? ''), content: output });
    } else if (type !== 'reasoning') {
      throw invalidRequest(`input item type '${String(type)}' is not supported for this model.`, `${param}.type`);
    }
  });
  return messages;
}

/** Budget tokens of `thinking` as the nearest `reasoning_effort`. */
function effortOf(request: ResponseRequest): ChatBody['reasoning_effort'] {
  if (request.reasoning?.effort) return request.reasoning.effort;
  return request.thinking?.type === 'enabled' ? effortOfBudget(request.thinking.budget_tokens) : undefined;
}

/** `text.format` (the Responses API's structured output) as chat's `response_format`. */
function responseFormatOf(request: ResponseRequest): Pick<ChatBody, 'response_format'> {
  const format = (request.text as { format?: Json } | undefined)?.format;
  if (!format || format.type === 'text') return {};
  if (format.type === 'json_object') return { response_format: { type: 'json_object' } };
  if (format.type === 'json_schema') {
    const { type: _type, ...spec } = format;
    return { response_format: { type: 'json_schema', json_schema: spec } };
  }
  throw invalidRequest(`text.format type '${String(format.type)}' is not supported for this model.`, 'text.format.type');
}

/**
 * Fields a model without the Responses API cannot honour through chat completions: refused by
 * name rather than dropped (as is any field this server does not know).
 */
const NOT_TRANSLATED = ['conversation', 'prompt', 'max_tool_calls', 'top_logprobs'] as const;
const KNOWN_RESPONSE_FIELDS = new Set(Object.keys(ResponseBody.shape));

function refuseUntranslatable(request: ResponseRequest): void {
  const fields = request as unknown as Json;
  for (const field of NOT_TRANSLATED) {
    if (fields[field] != null) {
      throw invalidRequest(`'${field}' is not supported for ${request.model}: it has no Responses API of its own to take it.`, field, 'unsupported_parameter');
    }
  }
  for (const field of Object.keys(fields)) {
    if (!KNOWN_RESPONSE_FIELDS.has(field) && fields[field] !== undefined) {
      throw invalidRequest(`Unknown parameter '${field}': ${request.model} cannot honour it.`, field, 'unsupported_parameter');
    }
  }
}

/** A Responses request as the chat request an upstream without the Responses API understands. */
export function toChatBody(request: ResponseRequest): ChatBody {
  refuseUntranslatable(request);
  if (request.input !== undefined && request.messages !== undefined) {
    throw invalidRequest('Give input or messages, not both.', 'messages');
  }
  const conversation = request.messages ?? (request.input === undefined ? undefined : messagesOf(request.input as string | Json[]));
  if (!conversation || conversation.length === 0) throw invalidRequest('Missing required body field \'input\'.', 'input', 'missing_field');
  const messages: ChatMessage[] = [...(request.instructions ? [{ role: 'system' as const, content: request.instructions }] : []), ...conversation];
  const tools = request.tools?.map((tool, i) => {
    if (tool.type !== 'function' || typeof tool.name !== 'string') {
      throw invalidRequest(`Tool type '${tool.type}' is not supported for this model; only function tools are.`, `tools[${i}]`);
    }
    return {
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        ...(isObject(tool.parameters) ? { parameters: tool.parameters } : {}),
      },
    };
  });
  const choice = request.tool_choice;
  const toolChoice =
    choice === undefined || typeof choice === 'string'
      ? choice
      : choice.type === 'function' && typeof choice.name === 'string'
        ? { type: 'function' as const, function: { name: choice.name } }
        : undefined;
  return {
    model: request.model,
    messages,
    ...responseFormatOf(request),
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(request.parallel_tool_calls != null ? { parallel_tool_calls: request.parallel_tool_calls } : {}),
    ...(request.max_output_tokens ? { max_tokens: request.max_output_tokens } : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
    ...(request.top_p != null ? { top_p: request.top_p } : {}),
    ...(effortOf(request) ? { reasoning_effort: effortOf(request) } : {}),
    ...(request.image_model ? { image_model: request.image_model } : {}),
    ...(request.user ? { user: request.user } : {}),
  };
}

export interface ResponseMeta {
  id: string;
  model: string;
  createdAt: number;
  request: ResponseRequest;
}

/** The response object around `output`, echoing the request's settings as OpenAI does. */
export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

export function responseObject(
  meta: ResponseMeta,
  fields: {
    status: ResponseStatus;
    output?: (Json & { type: string })[];
    usage?: TokenUsage | null;
    /** What was charged for it, in credits (`usage.cost`, as on chat completions). */
    cost?: number;
    error?: { code: string; message: string } | null;
    incomplete?: string | null;
  },
) {
  const { request } = meta;
  return {
    id: meta.id,
    object: 'response' as const,
    created_at: meta.createdAt,
    status: fields.status,
    model: meta.model,
    output: fields.output ?? [],
    usage: fields.usage ? { ...responsesUsageOf(fields.usage), ...(fields.cost !== undefined ? { cost: fields.cost } : {}) } : null,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete ? { reason: fields.incomplete } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    tools: request.tools ?? [],
    tool_choice: request.tool_choice ?? 'auto',
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    reasoning: request.reasoning ?? null,
    metadata: request.metadata ?? {},
    background: request.background ?? false,
    text: request.text ?? { format: { type: 'text' } },
    user: request.user ?? null,
  };
}

const messageItem = (id: string, text: string, status = 'completed') => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: text === '' && status !== 'completed' ? [] : [{ type: 'output_text', text, annotations: [] }],
});

const functionCallItem = (id: string, call: { id: string; name: string; arguments: string }, status = 'completed') => ({
  id,
  type: 'function_call',
  status,
  call_id: call.id,
  name: call.name,
  arguments: call.arguments,
});

/** A finished chat completion as a finished response. */
export function completionToResponse(meta: ResponseMeta, completion: ChatCompletionJson, usage: TokenUsage, cost: number) {
  const choice = completion.choices[0];
  const output: (Json & { type: string })[] = [];
  if (choice?.message.content) output.push(messageItem(randomId('msg'), choice.message.content));
  for (const call of choice?.message.tool_calls ?? []) {
    output.push(functionCallItem(randomId('fc'), { id: call.id, name: call.function.name, arguments: call.function.arguments }));
  }
  const truncated = choice?.finish_reason === 'length';
  return responseObject(meta, { status: truncated ? 'incomplete' : 'completed', output, usage, cost, incomplete: truncated ? 'max_output_tokens' : null });
}

/**
 * Streamed chat chunks as the Responses API's typed events, in the order the OpenAI SDKs expect:
 * created, in_progress, per item added → deltas → done, then completed with the whole response.
 * The chunks come metered (`meteredChunks`), so the usage they end with is what was charged.
 */
export async function* chunksToEvents(
  meta: ResponseMeta,
  chunks: AsyncIterable<ChatChunk>,
): AsyncGenerator<ResponseStreamEvent> {
  let sequence = 0;
  const event = (type: string, fields: Json): ResponseStreamEvent => ({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  yield event('response.created', { response: responseObject(meta, { status: 'in_progress' }) });
  yield event('response.in_progress', { response: responseObject(meta, { status: 'in_progress' }) });

  type Open = { index: number; id: string; kind: 'text'; text: string } | { index: number; id: string; kind: 'call'; call: { id: string; name: string; arguments: string } };
  const items: Open[] = [];
  let text: (Open & { kind: 'text' }) | null = null;
  const calls = new Map<number, Open & { kind: 'call' }>();
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let cost: number | undefined;
  let finish: string | null = null;

  for await (const chunk of chunks) {
    if (chunk.usage) {
      usage = tokenUsageOfChat(chunk.usage);
      cost = typeof chunk.usage.cost === 'number' ? chunk.usage.cost : cost;
    }
    const choice = chunk.choices[0];
    if (!choice) continue;
    finish = choice.finish_reason ?? finish;
    const delta = choice.delta;
    if (delta.content) {
      if (!text) {
        text = { index: items.length, id: randomId('msg'), kind: 'text', text: '' };
        items.push(text);
        yield event('response.output_item.added', { output_index: text.index, item: messageItem(text.id, '', 'in_progress') });
        yield event('response.content_part.added', { item_id: text.id, output_index: text.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      }
      text.text += delta.content;
      yield event('response.output_text.delta', { item_id: text.id, output_index: text.index, content_index: 0, delta: delta.content });
    }
    for (const fragment of delta.tool_calls ?? []) {
      let open = calls.get(fragment.index);
      if (!open) {
        open = { index: items.length, id: randomId('fc'), kind: 'call', call: { id: fragment.id ?? randomId('call'), name: fragment.function?.name ?? '', arguments: '' } };
        calls.set(fragment.index, open);
        items.push(open);
        yield event('response.output_item.added', { output_index: open.index, item: functionCallItem(open.id, open.call, 'in_progress') });
      }
      const piece = fragment.function?.arguments ?? '';
      if (piece) {
        open.call.arguments += piece;
        yield event('response.function_call_arguments.delta', { item_id: open.id, output_index: open.index, delta: piece });
      }
    }
  }

  const output: (Json & { type: string })[] = [];
  for (const item of items) {
    if (item.kind === 'text') {
      const part = { type: 'output_text', text: item.text, annotations: [] };
      yield event('response.output_text.done', { item_id: item.id, output_index: item.index, content_index: 0, text: item.text });
      yield event('response.content_part.done', { item_id: item.id, output_index: item.index, content_index: 0, part });
      const done = messageItem(item.id, item.text);
      output.push(done);
      yield event('response.output_item.done', { output_index: item.index, item: done });
    } else {
      yield event('response.function_call_arguments.done', { item_id: item.id, output_index: item.index, arguments: item.call.arguments });
      const done = functionCallItem(item.id, item.call);
      output.push(done);
      yield event('response.output_item.done', { output_index: item.index, item: done });
    }
  }
  const truncated = finish === 'length';
  const final = responseObject(meta, { status: truncated ? 'incomplete' : 'completed', output, usage, cost, incomplete: truncated ? 'max_output_tokens' : null });
  yield event(truncated ? 'response.incomplete' : 'response.completed', { response: final });
}
