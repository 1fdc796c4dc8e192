import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../server/cancellation.js';
import { ApiError } from '../../server/errors.js';
import type { RelayedChatBatch, RelayedChatChunk } from '../../server/providers/types.js';
import { relayedChatEvents } from '../../server/services/inference/chat-relay.js';
import type { Meter } from '../../server/services/inference/meter.js';
import { loggedMeter } from '../helpers/logged-meter.js';
import { eventsOf } from '../../server/streams.js';

/**
 * The steps a relayed stream leaves the service in: each step is one socket write. The batch
 * that ends the stream waits for the settlement and leaves with the end.
 */

const text = (content: string): RelayedChatChunk => ({
  data: JSON.stringify({ id: 'c1', model: 'up', choices: [{ index: 0, delta: { content } }] }),
  json: null,
  hasChoices: true,
  written: content.length,
  usage: null,
  serviceTier: null,
});
const usageJson = { id: 'c1', model: 'up', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
const usage: RelayedChatChunk = { data: JSON.stringify(usageJson), json: usageJson, hasChoices: false, written: 0, usage: usageJson.usage, serviceTier: null };

/** The data of each step the service yields, as the client would get them; `seen` hears of each as it comes. */
async function stepsOf(batches: RelayedChatBatch[], meter: Meter, seen: (step: string[]) => void = () => {}): Promise<string[][]> {
  async function* upstream() {
    yield* batches;
  }
  const events = relayedChatEvents(upstream(), meter, { input: { held: 3, exact: () => 3 }, modelId: 'acme/m', includeUsage: true, signal: new Cancellation().signal });
  const steps: string[][] = [];
  for await (const step of events) {
    steps.push(eventsOf(step).map(({ data }) => data));
    seen(steps.at(-1) as string[]);
  }
  return steps;
}

/** Each step into `log`, an event by what it carries: its text, its usage's cost, or [DONE]. */
async function steps(batches: RelayedChatBatch[], meter: Meter, log: string[]) {
  const shown = (data: string) => (data === '[DONE]' ? data : (JSON.parse(data).choices[0]?.delta.content ?? `usage ${JSON.parse(data).usage?.cost}`));
  await stepsOf(batches, meter, (step) => log.push(step.map(shown).join(' | ')));
}

describe('relayed chat events', () => {
  it('a batch that ends the stream waits for the settlement and leaves in one step with the usage and [DONE]', async () => {
    const log: string[] = [];
    await steps([{ chunks: [text('Hello'), text(' world'), usage], ended: true }], loggedMeter(log), log);
    expect(log).toEqual(['settle ok 2', 'Hello |  world | usage 0.02 | [DONE]']);
  });

  it('a batch before the end goes on at once, before the settlement', async () => {
    const log: string[] = [];
    await steps([{ chunks: [text('Hello')], ended: false }, { chunks: [text(' world'), usage], ended: true }], loggedMeter(log), log);
    expect(log).toEqual(['Hello', 'settle ok 2', ' world | usage 0.02 | [DONE]']);
  });

  it('a stream whose [DONE] came alone ends in a step of its own', async () => {
    const log: string[] = [];
    await steps([{ chunks: [text('Hello'), usage], ended: false }], loggedMeter(log), log);
    expect(log).toEqual(['Hello', 'settle ok 2', 'usage 0.02 | [DONE]']);
  });

  it('when the settlement fails, the text held for the end still reaches the client, before the error', async () => {
    const log: string[] = [];
    const written = (await stepsOf([{ chunks: [text('Hello'), usage], ended: true }], loggedMeter(log, new ApiError(503, 'api_error', 'The database cannot be reached.', 'database_unavailable')))).flat();
    expect(written).toHaveLength(2);
    expect(JSON.parse(written[0] as string).choices[0].delta.content).toBe('Hello');
    expect(JSON.parse(written[1] as string).error).toMatchObject({ code: 'database_unavailable' });
  });
});
