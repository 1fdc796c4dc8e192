/**
 * Anthropic Messages API requests as the gateway's chat completions, as pure functions. The
 * `/messages` front door is served by the chat service for every upstream that does not speak
 * the Messages API itself, so it is held, metered and recorded exactly as a chat completion is;
 * messages-answers.ts turns the answers back.
 *
 * Decisions worth knowing:
 * - A model name without `/` is an Anthropic one: `claude-sonnet-5` is `anthropic/claude-sonnet-5`.
 * - `system` becomes one system message (text blocks joined with blank lines). A user turn's
 *   `tool_result` blocks become `tool` messages, placed before the rest of the turn, which stays
 *   one user message (text, images as `image_url`, PDFs as `file`). An assistant turn is one
 *   assistant message: its text joined, its `tool_use` blocks as `tool_calls` with the input as
 *   JSON text; its `thinking` blocks are dropped (chat messages have no place for them). A
 *   `tool_result` with `is_error` is marked `Error: ` (tool messages have no flag).
 * - Thinking is the model's `reasoning_effort` where it has one (reasoning-effort.ts: OpenAI's
 *   o-series and gpt-5): `output_config.effort` as it is (`max` is `xhigh`, the chat format's
 *   highest), else `thinking.budget_tokens` by `effortOfBudget`; `disabled` is `low`, the least
 *   every such model takes; `adaptive` and `between_tools` leave the model's default. Such
 *   models are sent `max_completion_tokens` (they refuse `max_tokens`). On any other model
 *   thinking is accepted and has no effect.
 * - `top_k` is `top_k` (vLLM, OpenRouter and Together take it); `output_config.format` is a
 *   `json_schema` `response_format`; `service_tier` is `service_tier` (`standard_only` is
 *   OpenAI's `default`); `disable_parallel_tool_use` is `parallel_tool_calls: false`;
 *   `metadata.user_id` is `user`; `stop_sequences` is `stop`.
 * - Hints with no effect, accepted: `cache_control`, `tools[].eager_input_streaming`,
 *   `thinking.display`.
 * - Refused by name, not dropped: `context_management`, images inside a tool result,
 *   `tool_choice` without tools or naming a tool not offered, more than 4 stop sequences (and,
 *   by the schemas of messages-translatable.ts, any field they do not know).
 */
import { invalidRequest } from '../../errors.js';
import type { ChatBody } from '../../providers/types.js';
import type { MessagesMessage, TranslatableCountTokensBody, TranslatableMessagesBody } from './messages-translatable.js';
import { effortOfBudget, takesReasoningEffort, type ReasoningEffort } from './reasoning-effort.js';

// The answers' side, exported from here too: the front door reads the whole translation from this module.
export { createMessageStreamTranslator, errorEvent, toMessage, type ChatStreamError, type MessageStreamOptions } from './messages-answers.js';

/** What a request may hold: count_tokens has the conversation only, create the rest too. */
export type MessagesRequest = TranslatableCountTokensBody &
  Partial<
    Pick<
      TranslatableMessagesBody,
      'max_tokens' | 'stream' | 'temperature' | 'top_p' | 'top_k' | 'stop_sequences' | 'metadata' | 'service_tier' | 'context_management'
    >
  >;

type ChatMessage = ChatBody['messages'][number];
type UserPart = Exclude<Extract<ChatMessage, { role: 'user' }>['content'], string>[number];
type ToolCall = NonNullable<Extract<ChatMessage, { role: 'assistant' }>['tool_calls']>[number];

/** `claude-sonnet-5` → `anthropic/claude-sonnet-5`; `<provider>/<model>` stays as it is. */
export const resolveModelId = (model: string): string => (model.includes('/') ? model : `anthropic/${model}`);

/** Fields no model served through the chat format can honour. */
function refuseUntranslatable(request: MessagesRequest, modelId: string): void {
  if (request.context_management != null) {
    throw invalidRequest(
      `'context_management' is not supported for ${modelId}: clearing old tool results and thinking is done by Anthropic's ` +
        'own models, and this one is served through the chat format. Leave it out.',
      'context_management',
      'unsupported_parameter',
    );
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
  // Text and tool calls only: thinking blocks have no place in a chat message.
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

/** Anthropic's efforts as the chat format's: `max` has no equal there, `xhigh` is its highest. */
const EFFORTS: Record<NonNullable<NonNullable<MessagesRequest['output_config']>['effort']>, ReasoningEffort> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'xhigh',
};

/** The reasoning effort to ask of the model, where it takes one (see the top of this file). */
function reasoningEffortOf(request: MessagesRequest, modelId: string): ReasoningEffort | undefined {
  if (!takesReasoningEffort(modelId)) return undefined;
  const effort = request.output_config?.effort;
  if (effort) return EFFORTS[effort];
  switch (request.thinking?.type) {
    case 'enabled':
      return effortOfBudget(request.thinking.budget_tokens);
    case 'disabled':
      return 'low';
    default:
      return undefined;
  }
}

/** `output_config.format` as the chat format's structured output. */
function responseFormatOf(request: MessagesRequest): Pick<ChatBody, 'response_format'> {
  const format = request.output_config?.format;
  return format ? { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } } } : {};
}

/** The chat completion request for a Messages API request, for the model `modelId` (`<provider>/<model>`). */
export function toChatBody(request: MessagesRequest, modelId: string): ChatBody {
  refuseUntranslatable(request, modelId);
  const messages: ChatMessage[] = [];
  const system = typeof request.system === 'string' ? request.system : joinText(request.system ?? [], '\n\n');
  if (system !== '') messages.push({ role: 'system', content: system });
  request.messages.forEach((message, i) => {
    if (message.role === 'user') messages.push(...userMessages(message.content, `messages[${i}]`));
    else messages.push(assistantMessage(message.content));
  });
  const body: ChatBody = { model: modelId, messages, ...toolChoice(request), ...responseFormatOf(request) };
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
  const effort = reasoningEffortOf(request, modelId);
  if (effort) body.reasoning_effort = effort;
  if (request.max_tokens !== undefined) {
    // Reasoning models refuse max_tokens; their max_completion_tokens counts reasoning, as Anthropic's max_tokens counts thinking.
    if (takesReasoningEffort(modelId)) body.max_completion_tokens = request.max_tokens;
    else body.max_tokens = request.max_tokens;
  }
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.top_k != null) body.top_k = request.top_k;
  if (request.stop_sequences && request.stop_sequences.length > 0) body.stop = request.stop_sequences;
  if (request.metadata?.user_id != null) body.user = request.metadata.user_id;
  if (request.service_tier) body.service_tier = request.service_tier === 'standard_only' ? 'default' : 'auto';
  if (request.stream === true) {
    body.stream = true;
    // Real token counts for message_delta, instead of the gateway's estimate.
    body.stream_options = { include_usage: true };
  }
  return body;
}

