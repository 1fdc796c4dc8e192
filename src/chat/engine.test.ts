import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../client/client.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { runTurn, type TurnOptions } from './engine.js';
import type { ClientTool, TurnEvent } from './types.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

function noteTool(writes: boolean, calls: unknown[]): ClientTool {
  return {
    definition: { type: 'function', function: { name: 'save_note', parameters: { type: 'object' } } },
    writes,
    run: async (args) => {
      calls.push(args);
      return JSON.stringify({ saved: true });
    },
  };
}

function turn(question: string, overrides: Partial<TurnOptions> = {}) {
  const events: TurnEvent[] = [];
  const options: TurnOptions = {
    model: 'local/echo',
    messages: [{ role: 'user', content: question }],
    tools: [],
    maxToolRounds: 8,
    signal: new AbortController().signal,
    approve: async () => true,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { events, run: () => runTurn(createClient({ baseUrl: t.url, apiKey: t.liveKey }), options) };
}

const messages = (events: TurnEvent[]) => events.flatMap((e) => (e.type === 'message' ? [e.message] : []));

describe('runTurn', () => {
  it('streams an answer in deltas and keeps the finished message', async () => {
    const { events, run } = turn('plain question');
    expect(await run()).toBe('done');
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(1);
    expect(messages(events)).toEqual([{ role: 'assistant', content: expect.stringContaining('plain question') }]);
    expect(events.some((e) => e.type === 'usage')).toBe(true);
  });

  it('runs a tool the model calls and sends its result back', async () => {
    const calls: unknown[] = [];
    const { events, run } = turn('!tool save_note {"text":"hi"}', { tools: [noteTool(false, calls)] });
    expect(await run()).toBe('done');
    expect(calls).toEqual([{ text: 'hi' }]);
    const kept = messages(events);
    expect(kept.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(kept.at(-1)?.content).toContain('saved');
  });

  it('asks before a tool that writes; a decline tells the model', async () => {
    const calls: unknown[] = [];
    const { events, run } = turn('!tool save_note {}', { tools: [noteTool(true, calls)], approve: async () => false });
    await run();
    expect(calls).toEqual([]);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ declined: true });
    expect(messages(events).find((m) => m.role === 'tool')?.content).toContain('declined');
  });

  it('stops at max_tool_rounds without leaving a call unanswered in the history', async () => {
    const { events, run } = turn('!tool save_note {}', { tools: [noteTool(false, [])], maxToolRounds: 0 });
    expect(await run()).toBe('max_tool_rounds');
    expect(messages(events)).toEqual([{ role: 'assistant', content: expect.stringContaining('limit of 0 tool rounds') }]);
  });

  it('a tool that throws gives its error to the model as the result', async () => {
    const failing: ClientTool = { ...noteTool(false, []), run: async () => Promise.reject(new Error('disk full')) };
    const { events, run } = turn('!tool save_note {}', { tools: [failing] });
    await run();
    expect(messages(events).find((m) => m.role === 'tool')?.content).toContain('disk full');
  });

  it('cancelling keeps what was already said', async () => {
    const controller = new AbortController();
    const { events, run } = turn('a long enough answer to cut in the middle of it', {
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'delta' && events.filter((e) => e.type === 'delta').length === 2) controller.abort();
      },
    });
    expect(await run()).toBe('cancelled');
    const kept = messages(events);
    expect(kept).toHaveLength(1);
    expect(kept[0]?.content).toBeTruthy();
    expect(events.find((e) => e.type === 'message')).toMatchObject({ cancelled: true });
  });
});
