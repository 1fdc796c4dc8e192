import type { ChatBody, ModelEntry } from './types.js';
import { countingOf, QUARTER_CHARS, UTF8_BYTES, type InputCounting } from './tokenizer.js';

/**
 * Token counts of output no upstream counted: for the local provider and for streams cut short.
 * About four characters a token. Never for a hold's input: that is counted by `InputCounting`.
 */
export function estimateTokens(text: string): number {
  return tokensOfLength(text.length);
}

/** `estimateTokens` of a text known only by its length (what a stream has produced so far), or by its `writtenWeight`. */
export const tokensOfLength = (length: number) => Math.ceil(length / 4);

/**
 * What written text weighs for `tokensOfLength`, for a stream cut before the upstream counted it:
 * an ASCII character a quarter of a token, any other UTF-16 unit a whole one (Chinese, Japanese and
 * Korean run about a token a character; an emoji is two units). Characters / 4 would charge such a
 * text a quarter of the tokens written.
 */
export function writtenWeight(text: string, from = 0, to = text.length): number {
  let weight = 0;
  for (let i = from; i < to; i++) weight += text.charCodeAt(i) < 0x80 ? 1 : 4;
  return weight;
}

/**
 * The most one input image can cost in input tokens when its size is unknown, from the providers'
 * published image pricing: OpenAI's gpt-4o-mini counts a high-detail image at up to 25,501 tokens
 * (the largest of its models), Anthropic about 1,600 (images are scaled to at most 1.15 MP).
 */
export const IMAGE_TOKENS = { openai: 25_501, anthropic: 1_600 } as const;

/** What bounds a request's input: how its text counts, the price of one image, and the model's context window. */
export interface InputBounds {
  counting: InputCounting;
  imageTokens: number;
  contextTokens: number | null;
}

/** For a count with no model to bound it: UTF-8 bytes, the dearest image, no window. */
export const UNBOUNDED: InputBounds = { counting: UTF8_BYTES, imageTokens: IMAGE_TOKENS.openai, contextTokens: null };

/** The local echo model's count of what it is sent: its own rule, and an image as a low-detail one (85 tokens). */
export const ECHO_BOUNDS: InputBounds = { counting: QUARTER_CHARS, imageTokens: 85, contextTokens: null };

/** A model's bounds: the offline local models count by their own rule, which is exact for them. */
export const boundsOf = (entry: Pick<ModelEntry, 'provider' | 'model' | 'imageTokens' | 'contextLength'>): InputBounds => ({
  counting: entry.provider === 'local' ? QUARTER_CHARS : countingOf(entry.model),
  imageTokens: entry.imageTokens ?? IMAGE_TOKENS.openai,
  contextTokens: entry.contextLength,
});

/**
 * A request's input bound, two ways: `held`, what its hold takes first, cheap to compute (the
 * counting's `fast` one: UTF-8 bytes where the model has a tokenizer); and `exact()`, the
 * tokenizer's bound, computed when first asked for — when the cheap hold is refused, or a request
 * ends with no usage to charge — and never above `held`. Both are upper bounds of the upstream's count.
 */
export interface InputBound {
  held: number;
  exact(): number;
}

/** The bound `count` gives a request under `bounds`, the cheap way first (see `InputBound`). */
export function inputBoundOf(count: (bounds: InputBounds) => number, bounds: InputBounds): InputBound {
  const { fast } = bounds.counting;
  if (!fast) {
    const tokens = count(bounds);
    return { held: tokens, exact: () => tokens };
  }
  const held = count({ ...bounds, counting: fast });
  // A short input costs less to count exactly than a hold refused for its bytes would: counted now.
  if (held <= COUNT_AT_ONCE_BELOW) return knownInput(Math.min(held, count(bounds)));
  let exact: number | undefined;
  return { held, exact: () => (exact ??= Math.min(held, count(bounds))) };
}

/**
 * Inputs of fewer bounded tokens (about this many UTF-8 bytes) are tokenized before the hold: about
 * a millisecond's work, and the hold is then exact, so concurrent requests of a tight balance are
 * not turned away for bytes they do not cost. Longer ones are held by their bytes first.
 */
const COUNT_AT_ONCE_BELOW = 16_384;

/** A count already known exactly (an upstream's, or one that costs nothing). */
export const knownInput = (tokens: number): InputBound => ({ held: tokens, exact: () => tokens });

/** Bytes a base64 string (or data URL) decodes to. */
const decodedBytes = (data: string) => Math.floor(((data.length - (data.indexOf(',') + 1)) * 3) / 4);

/** The window taken for a model whose own is not known, where a part of unknown size may fill it. */
const UNKNOWN_WINDOW = 128_000;

const isPresent = (value: unknown) => value !== undefined && value !== null;

/** Audio: at most ten tokens a second, and no usable audio is below 1 KB a second (8 kbit/s). */
const audioTokens = (data: string) => Math.ceil(decodedBytes(data) / 100);

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * What one content part may cost. A file with its data: a token per three bytes (text is
 * denser) plus a page image; a file by id or URL, whose size is unknown: the whole context.
 */
function partTokens(part: unknown, bounds: InputBounds): number {
  switch (field(part, 'type')) {
    case 'text':
    case 'input_text':
    case 'output_text':
    case 'refusal':
      return bounds.counting.text(text(field(part, 'text')) || text(field(part, 'refusal')));
    case 'image_url':
    case 'input_image':
      return bounds.imageTokens;
    case 'input_audio':
      return audioTokens(text(field(field(part, 'input_audio'), 'data')));
    // Anthropic's blocks, as a relayed Messages request carries them.
    case 'image':
      return bounds.imageTokens;
    case 'thinking':
      return bounds.counting.text(text(field(part, 'thinking')));
    case 'tool_use':
    case 'server_tool_use':
      return bounds.counting.text(text(field(part, 'name')) + JSON.stringify(field(part, 'input') ?? {}));
    case 'tool_result':
      return contentTokens(field(part, 'content'), bounds);
    case 'document': {
      const source = field(part, 'source');
      const data = text(field(source, 'data'));
      if (field(source, 'type') === 'text') return bounds.counting.text(data);
      if (data) return Math.ceil(decodedBytes(data) / 3) + bounds.imageTokens;
      return bounds.contextTokens ?? UNKNOWN_WINDOW;
    }
    case 'file':
    case 'input_file': {
      const data = text(field(field(part, 'file'), 'file_data')) || text(field(part, 'file_data'));
      if (data) return Math.ceil(decodedBytes(data) / 3) + bounds.imageTokens;
      return bounds.contextTokens ?? UNKNOWN_WINDOW;
    }
    default:
      return bounds.counting.text(JSON.stringify(part) ?? '');
  }
}

/** A message's content: a string, or a list of parts of every kind. */
export function contentTokens(content: unknown, bounds: InputBounds): number {
  if (typeof content === 'string') return bounds.counting.text(content);
  if (!Array.isArray(content)) return 0;
  return content.reduce<number>((sum, part) => sum + partTokens(part, bounds), 0);
}

/** No input costs more than the model can read. */
const capped = (tokens: number, bounds: InputBounds) => (bounds.contextTokens === null ? tokens : Math.min(tokens, bounds.contextTokens));

/** The text of a message's content: a string, or a list of parts of which text parts count. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join('');
}

/** Any value as the upstream reads it: a string as it is, anything else as its JSON. */
const valueTokens = (value: unknown, bounds: InputBounds) =>
  bounds.counting.text(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/**
 * Tool definitions: their JSON, and what the upstream's rendering of them adds. Legacy
 * `functions` count the same way; a JSON schema for the answer is shown to the model as well.
 */
function toolsTokens(request: { tools?: unknown; functions?: unknown; response_format?: unknown }, bounds: InputBounds): number {
  let tokens = 0;
  for (const list of [request.tools, request.functions]) {
    if (!Array.isArray(list) || list.length === 0) continue;
    tokens += bounds.counting.toolsBlock + bounds.counting.perTool * list.length + valueTokens(list, bounds);
  }
  if (field(request.response_format, 'type') === 'json_schema') tokens += valueTokens(request.response_format, bounds);
  return tokens;
}

/**
 * A chat message as OpenAI counts it: its framing (role included), its content part by part, and
 * every other field's value (a name, earlier tool calls — an agent's history is mostly these —,
 * a tool result's call id).
 */
function messageTokens(message: Record<string, unknown>, bounds: InputBounds): number {
  let tokens = bounds.counting.message(text(message.role)) + contentTokens(message.content, bounds);
  for (const [key, value] of Object.entries(message)) {
    if (key === 'role' || key === 'content' || value === undefined || value === null) continue;
    tokens += valueTokens(value, bounds) + (key === 'name' ? bounds.counting.perName : 0);
  }
  return tokens;
}

/**
 * Input tokens of a chat request, an upper bound of what the upstream counts: every message
 * with its framing, the reply's priming, and the tools.
 */
export function estimateChatInputTokens(body: Pick<ChatBody, 'messages' | 'tools'> & { functions?: unknown; response_format?: unknown }, bounds: InputBounds): number {
  const messages = body.messages.reduce((sum, m) => sum + messageTokens(m, bounds), 0);
  return capped(messages + bounds.counting.perRequest + toolsTokens(body, bounds), bounds);
}

/**
 * Input tokens of a Messages request relayed as it is: the system prompt, every turn block by
 * block with its framing, and the tools.
 */
export function estimateMessagesInputTokens(
  request: { system?: unknown; messages: readonly { role?: unknown; content: unknown }[]; tools?: unknown },
  bounds: InputBounds,
): number {
  const turns = request.messages.reduce<number>((sum, message) => sum + bounds.counting.message(text(message.role)) + contentTokens(message.content, bounds), 0);
  const system = request.system === undefined ? 0 : bounds.counting.message('system') + contentTokens(request.system, bounds);
  return capped(turns + system + bounds.counting.perRequest + toolsTokens({ tools: request.tools }, bounds), bounds);
}

/**
 * Input tokens of a Responses request sent as it is: its items (messages as chat messages,
 * anything else by its JSON, with a message's framing), the instructions and the tools. A stored
 * prompt (`prompt`) or a conversation (`conversation`) is read upstream — its instructions, tools
 * and items are input the request does not show — so such a request may fill the whole window.
 */
export function estimateResponsesInputTokens(
  request: { input?: unknown; messages?: unknown; instructions?: unknown; tools?: unknown; prompt?: unknown; conversation?: unknown },
  bounds: InputBounds,
): number {
  if (isPresent(request.prompt) || isPresent(request.conversation)) return bounds.contextTokens ?? UNKNOWN_WINDOW;
  const input = request.input ?? request.messages ?? '';
  const items = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [input];
  const itemTokens = items.reduce<number>((sum, item) => {
    if (typeof item === 'string') return sum + bounds.counting.message('user') + bounds.counting.text(item);
    if (typeof item !== 'object' || item === null) return sum + bounds.counting.message('user') + valueTokens(item, bounds);
    const content = field(item, 'content');
    if (content === undefined) return sum + bounds.counting.message(text(field(item, 'type'))) + valueTokens(item, bounds);
    return sum + messageTokens(item as Record<string, unknown>, bounds);
  }, 0);
  const instructions = request.instructions === undefined ? 0 : bounds.counting.message('system') + valueTokens(request.instructions ?? '', bounds);
  return capped(itemTokens + instructions + bounds.counting.perRequest + toolsTokens({ tools: request.tools }, bounds), bounds);
}
