import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * How the input of a request is counted for its hold: never fewer tokens than the upstream will
 * count, framing included (ARCHITECTURE.md §6: the hold is an upper bound, never an estimate).
 */
export interface InputCounting {
  /** Tokens of a piece of text. */
  text(text: string): number;
  /** Framing around a message, its role included. */
  message(role: string): number;
  /** A message's `name`, besides the name's own tokens. */
  perName: number;
  /** Once a request: the priming of the reply. */
  perRequest: number;
  /** Tool definitions, besides their JSON's tokens: once for the block, and for each tool. */
  toolsBlock: number;
  perTool: number;
  /**
   * A counting never below this one that costs next to nothing (UTF-8 bytes for a tokenizer):
   * what a hold takes first, so a long conversation seen for the first time is not tokenized
   * before it is served (issue 23: 100k tokens take ~70 ms). Absent when this one is as cheap.
   */
  fast?: InputCounting;
}

// Special tokens in a user's text are plain text to the API: never refused, counted as text.
const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * Texts already counted, by their content: a conversation resends its whole history every turn,
 * and tokenizing 100k tokens takes ~100 ms where a lookup takes well under one. Short texts are
 * cheaper to count than to keep; the cache holds at most `MAX_CACHED_CHARS` characters and
 * forgets the oldest first.
 */
const MIN_CACHED_CHARS = 256;
const MAX_CACHED_CHARS = 8_000_000;

function cachedCount(count: (text: string) => number): (text: string) => number {
  const known = new Map<string, number>();
  let chars = 0;
  return (text) => {
    if (text.length < MIN_CACHED_CHARS) return count(text);
    const hit = known.get(text);
    if (hit !== undefined) {
      // Seen again: now the newest.
      known.delete(text);
      known.set(text, hit);
      return hit;
    }
    const tokens = count(text);
    if (text.length <= MAX_CACHED_CHARS) {
      known.set(text, tokens);
      chars += text.length;
      for (const oldest of known.keys()) {
        if (chars <= MAX_CACHED_CHARS) break;
        known.delete(oldest);
        chars -= oldest.length;
      }
    }
    return tokens;
  };
}

/**
 * A run of 512 characters without whitespace, or of whitespace alone, is one pre-token to OpenAI's
 * tokenizers, and byte-pair merging is quadratic in a pre-token's length (40k letters: a second;
 * 800k: minutes). A client could stall the server with one such paste, so a text holding one is
 * counted by its UTF-8 bytes instead: the proven bound, linear, and never below the tokenizer.
 */
const LONG_RUN = /\S{512}|\s{512}/;

/**
 * OpenAI's documented chat counting: 3 tokens a message (`<|im_start|>`, `<|im_sep|>`,
 * `<|im_end|>`), 1 more for a name, 3 priming the reply. Tools are shown to the model as a
 * TypeScript `namespace functions { … }` block: every name, description, property, type and enum
 * value in it is also in the tools' JSON, which adds quotes, braces and keys besides; what the
 * block adds that the JSON lacks is its wrapper (13 tokens in o200k_base, held as 16) and each
 * function's `type NAME = (_: {…}) => any;` (10, held as 12).
 */
const openAiCounting = (count: (text: string) => number): InputCounting => ({
  text: cachedCount((text) => (LONG_RUN.test(text) ? utf8Bytes(text) : count(text))),
  // The role's own tokens: one for each role the API knows, in both encodings.
  message: (role) => 3 + count(role),
  ...OPENAI_FRAMING,
  fast: OPENAI_BYTES,
});

const encoder = new TextEncoder();
const scratch = new Uint8Array(64 * 1024);

/** UTF-8 bytes of a text, without allocating for it: at most 3 bytes a UTF-16 unit. */
function utf8Bytes(text: string): number {
  if (text.length * 3 <= scratch.length) return encoder.encodeInto(text, scratch).written;
  return Buffer.byteLength(text, 'utf8');
}

/** OpenAI's framing besides a message's (see `openAiCounting`). */
const OPENAI_FRAMING = { perName: 1, perRequest: 3, toolsBlock: 16, perTool: 12 };

/**
 * OpenAI's framing around UTF-8 bytes instead of tokens: every token of o200k_base and cl100k_base
 * stands for at least one byte, so this is never below the tokenizer's count, and it is linear.
 */
const OPENAI_BYTES: InputCounting = {
  text: (text) => utf8Bytes(text),
  message: (role) => 3 + utf8Bytes(role),
  ...OPENAI_FRAMING,
};

export const O200K: InputCounting = openAiCounting((text) => o200k(text, AS_TEXT));
export const CL100K: InputCounting = openAiCounting((text) => cl100k(text, AS_TEXT));

/**
 * Every other model (Anthropic's, open models, unknown hosts): a byte-level BPE never yields more
 * tokens than the UTF-8 bytes it reads (each token stands for at least one byte; a SentencePiece
 * tokenizer with byte fallback adds at most a leading `▁`, which the framing covers). The framing
 * is the widest chat template we know: Llama 3's four tokens around a message, a begin-of-text
 * and a header priming the reply, and a system preamble (its date lines) under 32 tokens.
 */
export const UTF8_BYTES: InputCounting = {
  text: utf8Bytes,
  message: (role) => 8 + utf8Bytes(role),
  perName: 1,
  perRequest: 32,
  toolsBlock: 32,
  perTool: 8,
};

/**
 * The local echo model's own rule (its tokenizer, such as it is): a token per 4 characters and 4
 * for a message. Also the estimate of output not counted by an upstream (`estimateTokens`).
 */
export const QUARTER_CHARS: InputCounting = {
  text: (text) => Math.ceil(text.length / 4),
  message: () => 4,
  perName: 0,
  perRequest: 0,
  toolsBlock: 0,
  perTool: 0,
};

/** OpenAI's models by name (an `openai/` prefix, as OpenRouter names them, allowed). */
const O200K_MODELS = /^(?:openai\/)?(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o\d)(?:[-.:]|$)/;
const CL100K_MODELS = /^(?:openai\/)?(?:gpt-4|gpt-3\.5|text-embedding-(?:3-small|3-large|ada-002))(?:[-.:]|$)/;

/** Whether a model id names one of OpenAI's own models (their tokenizers, their request fields). */
export const isOpenAiModel = (model: string) => O200K_MODELS.test(model) || CL100K_MODELS.test(model);

/** The counting of a model: its own tokenizer when it is OpenAI's, else the bytes bound. */
export function countingOf(model: string): InputCounting {
  if (O200K_MODELS.test(model)) return O200K;
  if (CL100K_MODELS.test(model)) return CL100K;
  return UTF8_BYTES;
}
