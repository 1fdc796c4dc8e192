import type { z } from 'zod';
import type { InputItem, InputItemsQuery } from '../../../src/contract/schemas/responses.js';
import { invalidRequest } from '../../errors.js';

type Json = Record<string, unknown>;
type Item = z.output<typeof InputItem>;

/** Chat-style part types and what OpenAI's Responses API calls them in an input item. */
const INPUT_PART: Record<string, string> = { text: 'input_text', image_url: 'input_image', file: 'input_file', input_audio: 'input_audio' };

/** A content part as OpenAI lists it: assistant text is output_text, everyone else's input_text. */
function contentPart(part: unknown, role: string): Json & { type: string } {
  const textType = role === 'assistant' ? 'output_text' : 'input_text';
  if (typeof part === 'string') return { type: textType, text: part };
  if (typeof part !== 'object' || part === null) return { type: textType, text: String(part) };
  const typed = part as Json;
  const type = typeof typed.type === 'string' ? typed.type : 'text';
  if (type === 'text' || (type === 'input_text' && role === 'assistant')) return { ...typed, type: textType };
  if (type === 'image_url' && typeof typed.image_url === 'object' && typed.image_url !== null) {
    const { url, detail } = typed.image_url as Json;
    return { type: 'input_image', image_url: url, detail: detail ?? 'auto' };
  }
  return { ...typed, type: INPUT_PART[type] ?? type };
}

/**
 * One kept input item in OpenAI's item shape: items without a type are messages (the easy input
 * form, `{role, content}`), and a message's content is always a list of typed parts.
 */
export function toInputItem(item: Json): Item {
  const id = String(item.id ?? '');
  const type = typeof item.type === 'string' ? item.type : 'message';
  if (type !== 'message') return { ...item, type, id };
  const role = typeof item.role === 'string' ? item.role : 'user';
  const content = Array.isArray(item.content) ? item.content : [item.content ?? ''];
  return { ...item, type, id, role, status: item.status ?? 'completed', content: content.map((part) => contentPart(part, role)) };
}

/** One page of a response's input items (kept oldest first), as OpenAI's cursor list. */
export function pageOfInputItems(kept: Json[], query: z.output<typeof InputItemsQuery>) {
  const ordered = kept.map(toInputItem);
  if (query.order === 'desc') ordered.reverse();
  let start = 0;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    if (at < 0) throw invalidRequest(`No input item '${query.after}' in this response.`, 'after', 'item_not_found');
    start = at + 1;
  }
  const data = ordered.slice(start, start + query.limit);
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + query.limit < ordered.length,
  };
}
