import { describe, expect, it } from 'vitest';
import { ChatCompletionBody } from '../../src/contract/schemas/inference.js';
import { plainChatBody } from '../../server/http/plain-chat-body.js';

/**
 * The pipeline's quick check of a plain chat body (server/http/plain-chat-body.ts) stands in for
 * zod's parse of the chat schema: whatever it accepts, the schema must accept, and it must give
 * exactly what the parse gives (its JSON text, so key order too). Bodies are drawn from fields
 * with good and bad values, as JSON would bring them.
 */

/** A seeded generator (mulberry32): the same bodies every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NUMBERS = [0, -0, 1, 2, 2.5, 0.5, -1, 64, 128, 129, 1.5, 1e308, Number.MAX_SAFE_INTEGER, 2 ** 53, -2];
const WRONG = [null, 'x', '', true, false, [], {}, { nested: 1 }, ...NUMBERS];
const MESSAGES = [
  { role: 'user', content: 'hi' },
  { content: 'hi', role: 'system' },
  { role: 'developer', content: '' },
  { role: 'assistant', content: 'yes', name: 'bot' },
  { name: 'me', role: 'user', content: 'x' },
  { role: 'assistant', content: null },
  { role: 'tool', content: 'r', tool_call_id: 'c1' },
  { role: 'user', content: [{ type: 'text', text: 'hi' }] },
  { role: 'user', content: 'hi', name: 3 },
  { role: 'user', content: 'hi', extra: true },
  { role: 'robot', content: 'hi' },
  { role: 'user' },
  { content: 'hi' },
  'hi',
  null,
  [],
];
const FIELDS: Record<string, unknown[]> = {
  model: ['openai/gpt-4o-mini', 'local/echo', 'route/fast', 'gpt-4o', 'Openai/x', 'openai/', 'openai/a b', '', 3, null],
  messages: [], // drawn apart
  stream: [true, false, null, 'true', 0],
  stream_options: [null, {}, { include_usage: true }, { include_obfuscation: false, include_usage: false }, { include_usage: 'yes' }, { other: 1 }, [], 'x'],
  temperature: [...NUMBERS, null, '1'],
  top_p: [...NUMBERS, null],
  max_tokens: [...NUMBERS, null, '64'],
  max_completion_tokens: [...NUMBERS, null],
  n: [...NUMBERS, null],
  user: ['u1', '', null, 5],
  seed: [1, null],
  tools: [[], null],
  metadata: [{ a: 'b' }],
  unknown_field: [1, 'x'],
};

function drawBody(next: () => number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  if (next() < 0.03) return pick(WRONG);
  const body: Record<string, unknown> = {};
  const keys = Object.keys(FIELDS).sort(() => next() - 0.5);
  for (const key of keys) {
    // model and messages usually, the rest now and then.
    if (next() > (key === 'model' || key === 'messages' ? 0.95 : 0.12)) continue;
    if (key === 'messages') {
      const count = Math.floor(next() * 4);
      body.messages = next() < 0.05 ? pick(WRONG) : Array.from({ length: count }, () => (next() < 0.8 ? pick(MESSAGES.slice(0, 5)) : pick(MESSAGES)));
    } else body[key] = pick(FIELDS[key] as unknown[]);
  }
  // Through JSON, as a request's body comes.
  return JSON.parse(JSON.stringify(body));
}

describe('the quick check of a plain chat body', () => {
  it('accepts only what the chat schema accepts, and gives what its parse gives', () => {
    const next = random(28);
    let quick = 0;
    for (let i = 0; i < 20_000; i++) {
      const body = drawBody(next);
      const checked = plainChatBody(body);
      if (checked === undefined) continue;
      quick++;
      const parsed = ChatCompletionBody.safeParse(body);
      expect(parsed.success, JSON.stringify(body)).toBe(true);
      expect(JSON.stringify(checked), JSON.stringify(body)).toBe(JSON.stringify(parsed.data));
      expect(checked).toStrictEqual(parsed.data);
    }
    // Not vacuous: many bodies take the quick path.
    expect(quick, `${quick} quick`).toBeGreaterThan(500);
  });

  it('takes the bodies clients commonly send', () => {
    const bodies = [
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say something short.' }], max_tokens: 64 },
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }], stream: true, stream_options: { include_usage: true } },
      { messages: [{ role: 'user', content: 'u' }], model: 'local/echo', temperature: 0.7, top_p: 1, n: 1, user: 'x', max_completion_tokens: 10 },
    ];
    for (const body of bodies) expect(plainChatBody(body)).toStrictEqual(ChatCompletionBody.parse(body));
  });

  it('leaves the schema to judge what it cannot', () => {
    for (const body of [
      { model: 'openai/x', messages: [] },
      { model: 'openai/x', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      { model: 'openai/x', messages: [{ role: 'user', content: 'hi' }], tools: [] },
      { model: 'openai/x', messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 },
      { model: 'openai/x', messages: [{ role: 'user', content: 'hi' }], stream: null },
      JSON.parse('{"model":"openai/x","messages":[{"role":"user","content":"hi"}],"__proto__":{"max_tokens":1}}'),
      { messages: [{ role: 'user', content: 'hi' }] },
      [],
      null,
    ]) {
      expect(plainChatBody(body), JSON.stringify(body)).toBeUndefined();
    }
  });
});
