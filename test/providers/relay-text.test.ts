import { describe, expect, it } from 'vitest';
import { parseEventStream } from '../../src/contract/sse.js';
import { spliceStringField } from '../../server/providers/json-splice.js';

async function eventsOf(pieces: string[]) {
  const out: { event: string | null; data: string }[] = [];
  for await (const event of parseEventStream((async function* () {
    for (const piece of pieces) yield Buffer.from(piece);
  })())) out.push(event);
  return out;
}

/** Every way to cut `text` in two. */
const cuts = (text: string) => Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);

describe('parseEventStream', () => {
  const stream = 'event: one\ndata: {"a":1}\n\n: a comment\ndata: first\ndata:second\nid: 7\n\ndata: [DONE]\n\n';
  const expected = [
    { event: 'one', data: '{"a":1}' },
    { event: null, data: 'first\nsecond' },
    { event: null, data: '[DONE]' },
  ];

  it('reads events, names, comments and multi-line data however the body is cut', async () => {
    for (const pieces of cuts(stream)) expect(await eventsOf(pieces)).toEqual(expected);
  });

  it('decodes characters cut between two pieces of the body', async () => {
    const text = 'data: {"t":"héllo ✓ 🦊"}\n\ndata: ok\n\n';
    const bytes = Buffer.from(text);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j += 3) {
        const pieces = [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
        const out: string[] = [];
        for await (const { data } of parseEventStream((async function* () {
          yield* pieces;
        })())) out.push(data);
        expect(out).toEqual(['{"t":"héllo ✓ 🦊"}', 'ok']);
      }
    }
  });

  it('takes CRLF and CR line ends, a CRLF cut between its two halves included', async () => {
    for (const ending of ['\r\n', '\r']) {
      const text = stream.replaceAll('\n', ending);
      for (const pieces of cuts(text)) expect(await eventsOf(pieces)).toEqual(expected);
    }
  });

  it('dispatches data left without a blank line when the body ends, and nothing for an event without data', async () => {
    expect(await eventsOf(['event: ping\n\ndata: last\n'])).toEqual([{ event: null, data: 'last' }]);
    expect(await eventsOf(['data: last\r'])).toEqual([{ event: null, data: 'last' }]);
  });
});

describe('spliceStringField', () => {
  const splice = (text: string, expected: string, depth = 1) => spliceStringField(text, 'model', depth, expected, '"ours"');

  it('replaces the top-level value, not a nested one before it', () => {
    const text = '{"choices":[{"delta":{"model":"inner"}}],"model":"up/m-1","usage":null}';
    expect(splice(text, 'up/m-1')).toBe('{"choices":[{"delta":{"model":"inner"}}],"model":"ours","usage":null}');
    expect(JSON.parse(splice(text, 'up/m-1')!).choices[0].delta.model).toBe('inner');
  });

  it('never takes a key name written inside a string, escaped quotes and backslashes included', () => {
    const text = String.raw`{"content":"\"model\":\"x\" and \\","model" : "m\"1"}`;
    expect(JSON.parse(splice(text, 'm"1')!)).toEqual({ ...JSON.parse(text), model: 'ours' });
  });

  it('reaches a field one level down (message_start.message.model)', () => {
    const text = '{"type":"message_start","message":{"id":"m","model":"claude-x","content":[]}}';
    expect(JSON.parse(splice(text, 'claude-x', 2)!)).toEqual({ type: 'message_start', message: { id: 'm', model: 'ours', content: [] } });
  });

  it('is null where the field is missing, not a string, at another depth, or not the value the caller read', () => {
    expect(splice('{"id":"x"}', 'm')).toBeNull();
    expect(splice('{"model":7}', '7')).toBeNull();
    expect(splice('{"a":{"model":"m"}}', 'm')).toBeNull();
    expect(splice('{"model":"other"}', 'm')).toBeNull();
    expect(splice('{"model":"unterminated', 'm')).toBeNull();
  });
});
