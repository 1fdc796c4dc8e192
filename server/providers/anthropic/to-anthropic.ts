/**
 * An OpenAI chat request as an Anthropic Messages API request, as pure functions (the answers
 * come back through from-anthropic.ts).
 *
 * Decisions worth knowing:
 * - `system` and `developer` messages, wherever they stand, become the top-level `system`
 *   (joined with blank lines); Anthropic has no system turns.
 * - Anthropic wants user and assistant turns alternating: consecutive messages of one role are
 *   merged into one turn, and `tool` messages become `tool_result` blocks of a user turn (so a
 *   run of tool results and the user message after them are one turn, tool results first, as
 *   Anthropic requires). Empty text is dropped (Anthropic refuses empty text blocks), and with it
 *   a message left with nothing.
 * - Tool call ids are kept, except that characters Anthropic does not allow in ids
 *   (`[^a-zA-Z0-9_-]`) become `_`, the same way in `tool_use` and `tool_result`.
 * - Assistant tool call arguments must be a JSON object (Anthropic's `input`); empty arguments
 *   count as `{}`; anything else is a 400 naming the message.
 * - `temperature` is passed on as is up to 1 and clamped to 1 above (Anthropic's range is 0–1;
 *   OpenAI's 0–2 is not rescaled). `top_k` goes as it is. `max_tokens` is the call's output
 *   budget, always sent.
 * - Structured output (`response_format` json_object / json_schema) is a forced tool whose
 *   input is the answer (see `structuredAnswerOf`): its input comes back as the message text.
 * - Refused by name (a 400): fields that would change the answer and that Anthropic cannot
 *   honour (`UNSUPPORTED`), and any field this server does not know. Ignored, as hints with no
 *   effect on what is answered: `seed`, penalties, `metadata`, `store`, `service_tier`,
 *   `prompt_cache_key`, `safety_identifier`, `reasoning_effort`, `verbosity`, `stream_options`
 *   (usage always comes on the last chunk). Audio parts and file ids are a 400.
 */
import { invalidRequest } from '../../errors.js';
import { ChatCompletionBody } from '../../../src/contract/schemas/inference.js';
import type { ChatBody, ChatCall } from '../types.js';
import { contentText } from '../tokens.js';

type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: ImageSource }
  | { type: 'document'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string | { type: 'text'; text: string }[] };

export interface AnthropicTurn {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicTurn[];
  system?: string;
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  metadata?: { user_id: string };
  stream?: boolean;
}

type OpenAIMessage = ChatBody['messages'][number];

/** `data:<media type>[;…];base64,<data>`, or null for any other URL. */
function parseDataUrl(url: string): { media_type: string; data: string } | null {
  const match = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/s.exec(url);
  return match ? { media_type: match[1] as string, data: match[3] as string } : null;
}

const toolId = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '_');

const textBlocks = (content: string | { text: string }[] | null | undefined): { type: 'text'; text: string }[] =>
  (typeof content === 'string' ? [content] : (content ?? []).map((part) => part.text))
    .filter((text) => text.length > 0)
    .map((text) => ({ type: 'text', text }));

function userBlocks(content: Extract<OpenAIMessage, { role: 'user' }>['content'], at: string): AnthropicBlock[] {
  if (typeof content === 'string') return textBlocks(content);
  return content.flatMap((part, j): AnthropicBlock[] => {
    const param = `${at}.content[${j}]`;
    switch (part.type) {
      case 'text':
        return textBlocks(part.text);
      case 'image_url': {
        const url = part.image_url.url;
        const inline = parseDataUrl(url);
        if (inline) return [{ type: 'image', source: { type: 'base64', ...inline } }];
        if (/^https?:\/\//i.test(url)) return [{ type: 'image', source: { type: 'url', url } }];
        throw invalidRequest(`${param}: an image must be a base64 data: URL or an http(s) URL.`, param);
      }
      case 'file': {
        const data = (part.file as { file_data?: unknown }).file_data;
        const inline = typeof data === 'string' ? parseDataUrl(data) : null;
        if (inline) return [{ type: 'document', source: { type: 'base64', ...inline } }];
        throw invalidRequest(`${param}: Anthropic models take files only inline, as a base64 data: URL in file.file_data.`, param);
      }
      case 'input_audio':
        throw invalidRequest(`${param}: Anthropic models do not take audio.`, param);
    }
  });
}

function assistantBlocks(message: Extract<OpenAIMessage, { role: 'assistant' }>, at: string): AnthropicBlock[] {
  const calls = (message.tool_calls ?? []).map((call, j): AnthropicBlock => {
    const param = `${at}.tool_calls[${j}].function.arguments`;
    let input: unknown;
    try {
      input = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    } catch {
      input = undefined;
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw invalidRequest(`${param} must be a JSON object (the arguments of the tool call '${call.id}').`, param);
    }
    return { type: 'tool_use', id: toolId(call.id), name: call.function.name, input: input as Record<string, unknown> };
  });
  return [...textBlocks(message.content), ...calls];
}

/** The messages as Anthropic turns, and the system prompt gathered from them. */
export function toAnthropicMessages(messages: readonly OpenAIMessage[]): { system: string | undefined; messages: AnthropicTurn[] } {
  const system: string[] = [];
  const turns: AnthropicTurn[] = [];
  const add = (role: AnthropicTurn['role'], content: AnthropicBlock[]) => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = contentText(message.content);
        if (text) system.push(text);
        return;
      }
      case 'user':
        return add('user', userBlocks(message.content, at));
      case 'assistant':
        return add('assistant', assistantBlocks(message, at));
      case 'tool': {
        const content = typeof message.content === 'string' ? message.content : textBlocks(message.content);
        return add('user', [{ type: 'tool_result', tool_use_id: toolId(message.tool_call_id), content }]);
      }
    }
  });
  for (const turn of turns) {
    // Tool results first in a user turn (a stable sort keeps the order within each kind).
    if (turn.role === 'user') turn.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: turns };
}

function toolChoice(body: ChatBody): AnthropicToolChoice | undefined {
  const choice = body.tool_choice;
  if (choice === 'none') return { type: 'none' };
  const parallel = body.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'required') return { type: 'any', ...parallel };
  if (typeof choice === 'object') {
    if (choice.type !== 'function' || !('function' in choice)) {
      throw invalidRequest(`tool_choice '${choice.type}' cannot go to an Anthropic model: name a function tool.`, 'tool_choice', 'unsupported_parameter');
    }
    return { type: 'tool', name: (choice.function as { name: string }).name, ...parallel };
  }
  if (choice === 'auto' || body.parallel_tool_calls === false) return { type: 'auto', ...parallel };
  return undefined;
}

/** The tool whose input is the answer, when the client asked for JSON. */
export const ANSWER_TOOL = 'json_answer';

/** How the answer tool's input becomes the answer: as it is, or its `value` (a schema that is no object, wrapped). */
export interface StructuredAnswer {
  name: string;
  wrapped: boolean;
}

/**
 * `response_format` as Anthropic can honour it: a tool the model must call, whose input schema
 * is the answer's (a schema that is not an object is wrapped in one, since a tool's input is).
 */
export function structuredAnswerOf(body: ChatBody): { tool: NonNullable<AnthropicRequest['tools']>[number]; answer: StructuredAnswer } | null {
  const format = body.response_format as { type: string; json_schema?: { schema?: unknown; description?: unknown } } | undefined;
  if (!format || format.type === 'text') return null;
  const schema = format.type === 'json_schema' && typeof format.json_schema?.schema === 'object' && format.json_schema.schema !== null
    ? (format.json_schema.schema as Record<string, unknown>)
    : { type: 'object' };
  const wrapped = schema.type !== 'object';
  const description = typeof format.json_schema?.description === 'string' ? format.json_schema.description : 'The answer, as JSON.';
  return {
    tool: { name: ANSWER_TOOL, description, input_schema: wrapped ? { type: 'object', properties: { value: schema }, required: ['value'] } : schema },
    answer: { name: ANSWER_TOOL, wrapped },
  };
}

/** The answer tool's input as the answer's JSON text. */
export const answerText = (answer: StructuredAnswer, input: unknown) =>
  JSON.stringify(answer.wrapped && typeof input === 'object' && input !== null ? (input as { value?: unknown }).value ?? null : input);

/** Fields that would change the answer and that Anthropic cannot honour: refused by name. */
const UNSUPPORTED: Record<string, (body: Record<string, unknown>) => boolean> = {
  logit_bias: (b) => b.logit_bias != null,
  logprobs: (b) => b.logprobs === true,
  top_logprobs: (b) => b.top_logprobs != null,
  n: (b) => typeof b.n === 'number' && b.n > 1,
  audio: (b) => b.audio != null,
  modalities: (b) => Array.isArray(b.modalities) && b.modalities.some((m) => m !== 'text'),
  prediction: (b) => b.prediction != null,
  web_search_options: (b) => b.web_search_options != null,
};

/** Every field of a chat request this server knows (the contract's); others are the upstream's to judge. */
const KNOWN_FIELDS = new Set(Object.keys(ChatCompletionBody.shape));

function refuseUnsupported(body: ChatBody, model: string): void {
  const fields = body as unknown as Record<string, unknown>;
  for (const [field, present] of Object.entries(UNSUPPORTED)) {
    if (present(fields)) throw invalidRequest(`'${field}' is not supported by ${model} (an Anthropic model).`, field, 'unsupported_parameter');
  }
  for (const field of Object.keys(fields)) {
    if (!KNOWN_FIELDS.has(field) && fields[field] !== undefined) {
      throw invalidRequest(`Unknown parameter '${field}': ${model} (an Anthropic model) cannot honour it.`, field, 'unsupported_parameter');
    }
  }
  const tools = body.tools as { type: string }[] | undefined;
  const custom = tools?.findIndex((tool) => tool.type !== 'function') ?? -1;
  if (custom >= 0) throw invalidRequest(`tools[${custom}]: only function tools can go to ${model} (an Anthropic model).`, `tools[${custom}]`, 'unsupported_parameter');
}

/** The Messages API request for a chat call (without `stream`; the adapter adds it). */
export function toAnthropicRequest(call: Pick<ChatCall, 'model' | 'body' | 'maxOutputTokens'>): AnthropicRequest {
  const { body } = call;
  refuseUnsupported(body, call.model);
  const { system, messages } = toAnthropicMessages(body.messages);
  const request: AnthropicRequest = { model: call.model, max_tokens: call.maxOutputTokens, messages };
  if (system !== undefined) request.system = system;
  const functions = (body.tools ?? []) as Extract<NonNullable<ChatBody['tools']>[number], { type: 'function' }>[];
  if (functions.length > 0) {
    request.tools = functions.map(({ function: fn }) => ({
      name: fn.name,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      input_schema: fn.parameters ?? { type: 'object' },
    }));
    const choice = toolChoice(body);
    if (choice) request.tool_choice = choice;
  }
  const structured = structuredAnswerOf(body);
  if (structured) {
    // With tools of its own the model may call them, or answer; without, it must answer.
    const mayUseTools = functions.length > 0 && body.tool_choice !== 'none';
    request.tools = [...(mayUseTools ? (request.tools ?? []) : []), structured.tool];
    request.tool_choice = mayUseTools ? { type: 'any' } : { type: 'tool', name: structured.tool.name };
  }
  if (body.temperature != null) request.temperature = Math.min(body.temperature, 1);
  if (body.top_p != null) request.top_p = body.top_p;
  if (body.top_k != null) request.top_k = body.top_k;
  if (body.stop != null) request.stop_sequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (body.user !== undefined) request.metadata = { user_id: body.user };
  return request;
}
