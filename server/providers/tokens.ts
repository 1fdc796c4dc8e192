import type { ChatBody, ModelEntry } from './types.js';

/**
 * Token counts before an upstream has counted them: for holds, for the local provider, and for
 * streams cut short. About four characters a token, a slight overestimate for English, which is
 * the safe side for a hold.
 */
export function estimateTokens(text: string): number {
  return tokensOfLength(text.length);
}

/** `estimateTokens` of a text known only by its length (what a stream has produced so far). */
export const tokensOfLength = (length: number) => Math.ceil(length / 4);

/**
 * The most one input image can cost in input tokens when its size is unknown, from the providers'
 * published image pricing: OpenAI's gpt-4o-mini counts a high-detail image at up to 25,501 tokens
 * (the largest of its models), Anthropic about 1,600 (images are scaled to at most 1.15 MP).
 */
export const IMAGE_TOKENS = { openai: 25_501, anthropic: 1_600 } as const;

/** What bounds a request's input: the price of one image, and the model's context window. */
export interface InputBounds {
  imageTokens: number;
  contextTokens: number | null;
}

/** For a count with no model to bound it: the dearest image, no window. */
export const UNBOUNDED: InputBounds = { imageTokens: IMAGE_TOKENS.openai, contextTokens: null };

export const boundsOf = (entry: Pick<ModelEntry, 'imageTokens' | 'contextLength'>): InputBounds => ({
  imageTokens: entry.imageTokens ?? IMAGE_TOKENS.openai,
  contextTokens: entry.contextLength,
});

/** Bytes a base64 string (or data URL) decodes to. */
const decodedBytes = (data: string) => Math.floor(((data.length - (data.indexOf(',') + 1)) * 3) / 4);

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
      return estimateTokens(text(field(part, 'text')) || text(field(part, 'refusal')));
    case 'image_url':
    case 'input_image':
      return bounds.imageTokens;
    case 'input_audio':
      return audioTokens(text(field(field(part, 'input_audio'), 'data')));
    // Anthropic's blocks, as a relayed Messages request carries them.
    case 'image':
      return bounds.imageTokens;
    case 'thinking':
      return estimateTokens(text(field(part, 'thinking')));
    case 'tool_use':
    case 'server_tool_use':
      return estimateTokens(JSON.stringify(field(part, 'input') ?? {}));
    case 'tool_result':
      return contentTokens(field(part, 'content'), bounds);
    case 'document': {
      const source = field(part, 'source');
      const data = text(field(source, 'data'));
      if (field(source, 'type') === 'text') return estimateTokens(data);
      if (data) return Math.ceil(decodedBytes(data) / 3) + bounds.imageTokens;
      return bounds.contextTokens ?? 128_000;
    }
    case 'file':
    case 'input_file': {
      const data = text(field(field(part, 'file'), 'file_data')) || text(field(part, 'file_data'));
      if (data) return Math.ceil(decodedBytes(data) / 3) + bounds.imageTokens;
      return bounds.contextTokens ?? 128_000;
    }
    default:
      return estimateTokens(JSON.stringify(part) ?? '');
  }
}

/** A message's content: a string, or a list of parts of every kind. */
export function contentTokens(content: unknown, bounds: InputBounds): number {
  if (typeof content === 'string') return estimateTokens(content);
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

/**
 * Input tokens of a chat request: every message and part (plus a few for its framing), the
 * arguments of earlier tool calls (an agent's history is mostly these), and the tools.
 */
export function estimateChatInputTokens(body: Pick<ChatBody, 'messages' | 'tools'>, bounds: InputBounds): number {
  const messages = body.messages.reduce(
    (sum, m) => sum + contentTokens(m.content, bounds) + ('tool_calls' in m && m.tool_calls ? estimateTokens(JSON.stringify(m.tool_calls)) : 0) + 4,
    0,
  );
  return capped(messages + (body.tools ? estimateTokens(JSON.stringify(body.tools)) : 0), bounds);
}

/**
 * Input tokens of a Messages request relayed as it is: the system prompt, every turn block by
 * block, and the tools.
 */
export function estimateMessagesInputTokens(
  request: { system?: unknown; messages: readonly { content: unknown }[]; tools?: unknown },
  bounds: InputBounds,
): number {
  const turns = request.messages.reduce((sum, message) => sum + contentTokens(message.content, bounds) + 4, 0);
  const extra = contentTokens(request.system, bounds) + (request.tools ? estimateTokens(JSON.stringify(request.tools)) : 0);
  return capped(turns + extra, bounds);
}

/**
 * Input tokens of a Responses request sent as it is: its items (message contents part by part,
 * anything else by its size), the instructions and the tools.
 */
export function estimateResponsesInputTokens(
  request: { input?: unknown; messages?: unknown; instructions?: unknown; tools?: unknown },
  bounds: InputBounds,
): number {
  const input = request.input ?? request.messages ?? '';
  const items = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [input];
  const itemTokens = items.reduce<number>((sum, item) => {
    if (typeof item === 'string') return sum + estimateTokens(item);
    const content = field(item, 'content');
    return sum + 4 + (content === undefined ? estimateTokens(JSON.stringify(item) ?? '') : contentTokens(content, bounds));
  }, 0);
  const extra = estimateTokens(text(request.instructions)) + (request.tools ? estimateTokens(JSON.stringify(request.tools)) : 0);
  return capped(itemTokens + extra, bounds);
}
