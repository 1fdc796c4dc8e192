import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../server/cancellation.js';
import { ApiError } from '../../server/errors.js';
import type { RelayedEvent } from '../../server/providers/types.js';
import { relayedEvents } from '../../server/services/inference/messages-relay.js';
import type { Meter } from '../../server/services/inference/meter.js';
import { loggedMeter } from '../helpers/logged-meter.js';

/**
 * The steps a relayed Messages stream leaves the service in: each step is one socket write. The
 * events of one piece of the upstream's body go together, and a piece that holds the last
 * `message_delta` waits for its settlement (the delta says what was charged) and leaves with it.
 */

const event = (name: string, data: object = {}): RelayedEvent => ({ event: name, data: JSON.stringify({ type: name, ...data }) });
const START = event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-up', usage: { input_tokens: 3, output_tokens: 1 } } });
const text = (value: string) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: value } });
const DELTA = event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } });
const STOP = event('message_stop');

/** Each step into `log` as it comes, an event by its name (a delta's text, a message_delta's cost, the model of message_start). */
async function steps(pieces: RelayedEvent[][], meter: Meter, log: string[]) {
  async function* upstream() {
    yield* pieces;
  }
  const shown = ({ event: name, data }: { event?: string | null; data: string }) => {
    const json = JSON.parse(data);
    if (name === 'content_block_delta') return json.delta.text;
    if (name === 'message_delta') return `message_delta ${json.usage.cost}`;
    if (name === 'message_start') return `message_start ${json.message.model}`;
    if (name === 'error') return `error ${json.error.type}: ${json.error.message}`;
    return name;
  };
  for await (const step of relayedEvents(upstream(), meter, 'anthropic/claude', new Cancellation().signal)) log.push(step.map(shown).join(' | '));
}

describe('relayed Messages events', () => {
  it('a whole answer in one piece waits for its settlement and leaves in one step, its message_delta carrying the charge', async () => {
    const log: string[] = [];
    await steps([[START, text('Hello'), text(' world'), DELTA, STOP]], loggedMeter(log), log);
    expect(log).toEqual(['settle ok 2', 'message_start anthropic/claude | Hello |  world | message_delta 0.02 | message_stop']);
  });

  it('each piece is a step, and one before the message_delta goes on at once, before the settlement', async () => {
    const log: string[] = [];
    await steps([[START, text('Hello')], [text(' world')], [DELTA, STOP]], loggedMeter(log), log);
    expect(log).toEqual(['message_start anthropic/claude | Hello', ' world', 'settle ok 2', 'message_delta 0.02 | message_stop']);
  });

  it('when the settlement fails, the text of its piece still reaches the client, then the error', async () => {
    const log: string[] = [];
    const failure = new ApiError(503, 'api_error', 'The database cannot be reached.', 'database_unavailable');
    await steps([[START, text('Hello'), DELTA, STOP]], loggedMeter(log, failure), log);
    expect(log).toEqual(['settle ok 2', 'message_start anthropic/claude | Hello | error api_error: The database cannot be reached.']);
  });
});
