import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { boundsOf, estimateChatInputTokens, estimateMessagesInputTokens, UNBOUNDED } from '../../server/providers/tokens.js';
import { countingOf, CL100K, O200K, UTF8_BYTES } from '../../server/providers/tokenizer.js';
import { promptTokensOf } from '../fixtures/fake-openai.js';
import { countInputTokens } from '../fixtures/fake-anthropic/tokens.js';

const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/** Texts a four-characters-a-token estimate gets wrong, and some that trip tokenizers up. */
const ADVERSARIAL = {
  cjk: '東京都の天気は晴れ時々くもり、最高気温は二十三度です。明日は雨が降るでしょう。',
  korean: '안녕하세요 오늘 날씨가 정말 좋네요',
  emoji: '😀🎉🔥👩‍👩‍👧‍👦🏳️‍🌈🇯🇵'.repeat(10),
  numbers: '31415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679',
  whitespace: ' \t \n\n\n   \u00a0\u3000 '.repeat(40),
  mixed: 'x = [1,2,3];\n\tif (x) { return "ünïcödé"; } // コメント 🤖',
  specials: 'a <|endoftext|> b <|im_start|>user<|im_sep|>',
  combining: 'e\u0301'.repeat(50) + 'Z\u0351\u0352\u0357\u0358'.repeat(20),
  long: 'lorem ipsum dolor sit amet '.repeat(400),
} as const;

describe('the bound of a text', () => {
  it.each(Object.entries(ADVERSARIAL))('UTF-8 bytes are never fewer than either OpenAI encoding counts (%s)', (_, text) => {
    const bytes = UTF8_BYTES.text(text);
    expect(bytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(bytes).toBeGreaterThanOrEqual(o200k(text, AS_TEXT));
    expect(bytes).toBeGreaterThanOrEqual(cl100k(text, AS_TEXT));
  });

  it.each(Object.entries(ADVERSARIAL))('an OpenAI model is counted by its own encoding, special tokens as text (%s)', (_, text) => {
    expect(O200K.text(text)).toBe(o200k(text, AS_TEXT));
    expect(CL100K.text(text)).toBe(cl100k(text, AS_TEXT));
    // Counted again (from the cache for long texts): the same.
    expect(O200K.text(text)).toBe(o200k(text, AS_TEXT));
  });

  it('the four-characters estimate was below the truth on these texts', () => {
    for (const text of [ADVERSARIAL.cjk, ADVERSARIAL.emoji, ADVERSARIAL.numbers]) expect(Math.ceil(text.length / 4)).toBeLessThan(o200k(text, AS_TEXT));
  });

  it('picks the encoding by model name, and bytes for everything else', () => {
    for (const model of ['gpt-4o', 'gpt-4o-mini-2024-07-18', 'gpt-4.1-nano', 'o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5.1-codex', 'openai/gpt-4o', 'chatgpt-4o-latest']) {
      expect(countingOf(model), model).toBe(O200K);
    }
    for (const model of ['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo', 'text-embedding-3-small']) expect(countingOf(model), model).toBe(CL100K);
    for (const model of ['claude-sonnet-4-5', 'llama-3.1-70b', 'gpt-oss-120b', 'openai/gpt-oss-20b', 'omni-moderation-latest', 'mistral-large']) {
      expect(countingOf(model), model).toBe(UTF8_BYTES);
    }
  });
});

describe('the bound of a request', () => {
  const gpt4o = boundsOf({ provider: 'openai', model: 'gpt-4o-mini', imageTokens: undefined, contextLength: null });
  const claude = boundsOf({ provider: 'anthropic', model: 'claude-sonnet-4-5', imageTokens: 1_600, contextLength: null });
  const messages = [
    { role: 'system' as const, content: ADVERSARIAL.mixed },
    { role: 'user' as const, content: ADVERSARIAL.cjk, name: 'alice' },
    { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'weather', arguments: '{"city":"東京"}' } }] },
    { role: 'tool' as const, content: ADVERSARIAL.numbers, tool_call_id: 'call_1' },
    { role: 'user' as const, content: [{ type: 'text' as const, text: ADVERSARIAL.emoji }] },
    { role: 'user' as const, content: ADVERSARIAL.whitespace },
  ];

  it('an OpenAI chat: the count OpenAI makes (3 a message, 1 a name, 3 priming), never less', () => {
    const body = { model: 'gpt-4o-mini', messages } as never;
    expect(estimateChatInputTokens(body, gpt4o)).toBeGreaterThanOrEqual(promptTokensOf('gpt-4o-mini', messages));
    // Without earlier tool calls (held as their whole JSON list, brackets included): exactly OpenAI's count.
    const plain = messages.filter((message) => !('tool_calls' in message));
    expect(estimateChatInputTokens({ messages: plain } as never, gpt4o)).toBe(promptTokensOf('gpt-4o-mini', plain));
    // A plain exchange, worked by hand: 3 + "user" (1) + the text, and 3 priming the reply.
    const hello = [{ role: 'user' as const, content: 'Hello world' }];
    expect(estimateChatInputTokens({ messages: hello } as never, gpt4o)).toBe(3 + 1 + o200k('Hello world') + 3);
  });

  it('tools are held above their JSON: the rendering OpenAI shows the model adds at most the margin', () => {
    const tools = [{ type: 'function', function: { name: 'weather', description: 'The weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const body = { messages: messages.slice(0, 2), tools } as never;
    const withoutTools = estimateChatInputTokens({ messages: messages.slice(0, 2) } as never, gpt4o);
    expect(estimateChatInputTokens(body, gpt4o) - withoutTools).toBe(o200k(JSON.stringify(tools)) + O200K.toolsBlock + O200K.perTool);
    expect(estimateChatInputTokens(body, gpt4o)).toBeGreaterThanOrEqual(promptTokensOf('gpt-4o-mini', messages.slice(0, 2), tools));
  });

  it('a model without a known tokenizer: bytes, above every OpenAI encoding', () => {
    const bound = estimateChatInputTokens({ messages } as never, UNBOUNDED);
    expect(bound).toBeGreaterThanOrEqual(promptTokensOf('gpt-4o', messages));
    expect(bound).toBeGreaterThanOrEqual(promptTokensOf('gpt-4', messages));
  });

  it('an Anthropic request relayed: above what the fake Anthropic counts (4 characters a token, 3 a message)', () => {
    const request = {
      system: ADVERSARIAL.mixed,
      messages: [
        { role: 'user' as const, content: ADVERSARIAL.cjk },
        { role: 'assistant' as const, content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: '東京' } }] },
        { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: ADVERSARIAL.numbers }, { type: 'text', text: ADVERSARIAL.emoji }] },
      ],
      tools: [{ name: 'weather', input_schema: { type: 'object' } }],
    };
    expect(estimateMessagesInputTokens(request, claude)).toBeGreaterThanOrEqual(countInputTokens(request));
  });

  it('no input is held above the context window', () => {
    const small = boundsOf({ provider: 'x', model: 'small', imageTokens: undefined, contextLength: 100 });
    expect(estimateChatInputTokens({ messages: [{ role: 'user', content: ADVERSARIAL.long }] } as never, small)).toBe(100);
  });
});

describe('a pathological paste cannot stall the hold', () => {
  // The tokenizer would take minutes over these (and the test's timeout would end it): the bytes
  // bound, which the tokenizer's count never exceeds, is taken instead.
  it('a 1 MB run without whitespace (or of whitespace) is counted by its bytes', () => {
    for (const text of ['x'.repeat(1_000_000), ' '.repeat(1_000_000), `a question ${'ab'.repeat(500_000)}`]) {
      expect(O200K.text(text)).toBe(Buffer.byteLength(text));
      expect(CL100K.text(text)).toBe(Buffer.byteLength(text));
    }
  });
});
