import { describe, expect, it } from 'vitest';
import { scanChunk } from '../../server/providers/openai/chunk-scan.js';
import { writtenWeight } from '../../server/providers/tokens.js';

/** What the relay's parse reads of a chunk, by the rules of relay.ts: choices, and the weight of the text each delta writes. */
function parsedRead(text: string) {
  const json = JSON.parse(text) as { choices: { delta?: Record<string, any> }[] };
  let written = 0;
  for (const { delta = {} } of json.choices) {
    written += typeof delta.content === 'string' ? writtenWeight(delta.content) : 0;
    written += typeof delta.reasoning_content === 'string' ? writtenWeight(delta.reasoning_content) : typeof delta.reasoning === 'string' ? writtenWeight(delta.reasoning) : 0;
    for (const call of delta.tool_calls ?? []) written += typeof call.function?.arguments === 'string' ? writtenWeight(call.function.arguments) : 0;
  }
  return { hasChoices: json.choices.length > 0, written };
}

const chunk = (choices: unknown[], extra: object = {}) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices, usage: null, ...extra });
const delta = (d: object, more: object = {}) => ({ index: 0, delta: d, finish_reason: null, ...more });

describe('scanChunk', () => {
  it('reads plain chunks as the parse does: text with escapes, reasoning, tool arguments, logprobs, no choices', () => {
    const plain = [
      chunk([delta({ role: 'assistant', content: 'Hello' })]),
      chunk([delta({ content: 'line\none "quoted" \\ back\u00e9 \ud83e\udd8a' })]),
      chunk([delta({ content: null })]),
      chunk([delta({ reasoning_content: 'think' })]),
      chunk([delta({ reasoning: 'think more' })]),
      chunk([delta({ tool_calls: [{ index: 0, id: 'x', function: { name: 'f', arguments: '{"a":"' } }, { index: 1, function: { arguments: '1}' } }] })]),
      chunk([delta({ content: 'x' }, { logprobs: { content: [{ token: 'x', logprob: -0.1 }] } })]),
      chunk([delta({}, { finish_reason: 'stop' })]),
      chunk([]),
      chunk([delta({ content: 'say "content": "no"' }), { index: 1, delta: { content: 'two' }, finish_reason: null }]),
      '{ "id" : "c" , "choices" : [ { "delta" : { "content" : "spaced" } } ] , "usage" : null }',
      // Names inside the values read (their quotes escaped) are text, and the names after them are still read.
      chunk([delta({ tool_calls: [{ index: 0, function: { arguments: '{"error":"usage","content":' } }] }), delta({ content: '"choices": []' })]),
      chunk([delta({ content: 'back\\' }), delta({ reasoning: 'after a backslash' })]),
    ];
    for (const text of plain) expect(scanChunk(text), text).toEqual(parsedRead(text));
  });

  it('leaves to the parse what is not plain: an error, a usage, no object, choices twice, both reasoning names, a name as a value', () => {
    const others = [
      JSON.stringify({ error: { message: 'no' } }),
      chunk([], { usage: { prompt_tokens: 1, completion_tokens: 2 } }),
      '[1]',
      ' {"choices":[]}',
      '{"choices":[],"x":{"choices":[]}}',
      '{"choices":"no"}',
      chunk([delta({ reasoning_content: 'a', reasoning: 'b' })]),
      chunk([delta({ content: 'x', role: 'content' })]),
      '{"choices":[{"delta":{"content":"unterminated}}]}',
      chunk([delta({ content: 'text' })], { usage: { total_tokens: 3 } }),
      '{"choices":[{"delta":{"content":"bad \\x escape"}}]}',
    ];
    for (const text of others) expect(scanChunk(text), text).toBeNull();
  });
});
