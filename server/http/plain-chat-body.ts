import { ChatCompletionBody, MODEL_ID_PATTERN } from '../../src/contract/schemas/inference.js';
import type { ChatBody } from '../providers/types.js';

/**
 * The chat body most requests send — a model, plain text messages, and a few numbers — checked
 * by hand: zod's parse of the whole chat schema was the largest single cost of a metered request
 * outside the store (#28). It accepts only bodies the schema accepts and gives what the schema's
 * parse gives (a copy, its keys in the schema's order); anything else (another field, a message
 * with parts, tool calls, a value out of range) is `undefined`, and goes through zod, which
 * answers it as ever — every refusal and its `param` stay zod's. test/contract/plain-chat-body.test.ts
 * holds it to the schema.
 */

type Check = (value: unknown) => boolean;

const isBoolean: Check = (value) => typeof value === 'boolean';
const isString: Check = (value) => typeof value === 'string';
/** An integer in [min, max] (safe integers only: zod's `int()` takes no others). */
const integerIn = (min: number, max: number): Check => (value) => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
const numberIn = (min: number, max: number): Check => (value) => typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
/** The schema's `.nullish()`: null too (undefined never comes out of JSON). */
const orNull = (check: Check): Check => (value) => value === null || check(value);

/** The fields checked here, each as the schema says (src/contract/schemas/inference.ts). */
const FIELDS: Record<string, Check> = {
  model: (value) => typeof value === 'string' && MODEL_ID_PATTERN.test(value),
  // Built apart (copied), below.
  messages: () => true,
  stream: isBoolean,
  stream_options: () => true,
  temperature: orNull(numberIn(0, 2)),
  top_p: orNull(numberIn(0, 1)),
  max_tokens: orNull(integerIn(1, Number.MAX_SAFE_INTEGER)),
  max_completion_tokens: orNull(integerIn(1, Number.MAX_SAFE_INTEGER)),
  n: orNull(integerIn(1, 128)),
  user: isString,
};

/** The checked fields in the schema's order, the order its parse writes them in. */
const ORDER = Object.keys(ChatCompletionBody.shape).filter((key) => key in FIELDS);

/** Roles whose plain message is `{role, content: string, name?: string}` in the schema. */
const PLAIN_ROLES = new Set(['system', 'developer', 'user', 'assistant']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of a message of text only (`role`, `content`, `name`, in the schema's order), or undefined. */
function plainMessage(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    if (key !== 'role' && key !== 'content' && key !== 'name') return undefined;
    keys++;
  }
  const { role, content, name } = value;
  if (typeof role !== 'string' || !PLAIN_ROLES.has(role) || typeof content !== 'string') return undefined;
  if (keys === 2) return { role, content };
  return typeof name === 'string' ? { role, content, name } : undefined;
}

/** `stream_options` as the schema's parse writes it, or undefined when it is not a plain one. */
function plainStreamOptions(value: unknown): Record<string, unknown> | null | undefined {
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key in value) if (key !== 'include_usage' && key !== 'include_obfuscation') return undefined;
  for (const key of ['include_usage', 'include_obfuscation']) {
    if (!Object.hasOwn(value, key)) continue;
    if (typeof value[key] !== 'boolean') return undefined;
    out[key] = value[key];
  }
  return out;
}

/** A plain chat body as the schema's parse gives it, or undefined: zod is then the judge. */
export function plainChatBody(value: unknown): ChatBody | undefined {
  if (!isRecord(value)) return undefined;
  for (const key in value) if (!Object.hasOwn(FIELDS, key)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of ORDER) {
    if (!Object.hasOwn(value, key)) continue;
    const field = value[key];
    if (key === 'messages') {
      if (!Array.isArray(field) || field.length === 0) return undefined;
      const messages: Record<string, unknown>[] = [];
      for (const each of field) {
        const message = plainMessage(each);
        if (!message) return undefined;
        messages.push(message);
      }
      out.messages = messages;
    } else if (key === 'stream_options') {
      const options = plainStreamOptions(field);
      if (options === undefined) return undefined;
      out.stream_options = options;
    } else {
      if (!FIELDS[key]!(field)) return undefined;
      out[key] = field;
    }
  }
  // Required by the schema.
  if (!Object.hasOwn(out, 'model') || !Object.hasOwn(out, 'messages')) return undefined;
  return out as ChatBody;
}
