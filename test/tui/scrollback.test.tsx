import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Ink draws frames only where it believes a person watches: not "in CI". These tests are that
// person, so CI must not change what Ink writes.
vi.hoisted(() => {
  process.env.CI = 'false';
  delete process.env.CONTINUOUS_INTEGRATION;
});

import { render } from 'ink';
import { createClient } from '../../src/client/client.js';
import { ChatApp } from '../../src/tui/chat/ChatApp.js';
import { CHAT_RENDER_OPTIONS } from '../../src/tui/chat/launch.js';
import type { ChatSettings } from '../../src/tui/chat/session.js';
import { scriptedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FakeStdin, headlessTerminal, type HeadlessTerminal } from '../helpers/xterm.js';

/**
 * What the chat prints, replayed through a real terminal emulator: every line of a long answer
 * must end up once, in order, in the scrollback and on the screen, and what was in the user's
 * terminal before must survive.
 */

let answer = '';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ providers: [scriptedProvider(() => answer)] });
});
afterAll(() => server.close());

const SETTINGS: ChatSettings = {
  model: 'script/answer',
  toolsEnabled: false,
  maxToolRounds: 1,
  contextMessages: 40,
  maxFileBytes: 64 * 1024,
  liveRows: 0,
  redrawMs: 0,
};

/** A markdown answer of paragraphs, a long code block, and a list; every line carries a marker. */
function longAnswer(paragraphs: number, codeLines: number): { text: string; markers: string[] } {
  const markers: string[] = [];
  const mark = (n: string) => {
    markers.push(n);
    return n;
  };
  const parts: string[] = [];
  for (let i = 0; i < paragraphs; i++) parts.push(`Paragraph ${mark(`P${i}x`)} says something short.`);
  parts.push(['```ts', ...Array.from({ length: codeLines }, (_, i) => `const ${mark(`C${i}x`)} = ${i};`), '```'].join('\n'));
  for (let i = 0; i < 5; i++) parts.push(`- item ${mark(`I${i}x`)}`);
  parts.push(`The end ${mark('ENDx')}.`);
  return { text: parts.join('\n\n'), markers };
}

async function chatIn(terminal: HeadlessTerminal) {
  const stdin = new FakeStdin();
  const exit = vi.fn();
  const instance = render(
    <ChatApp
      client={createClient({ baseUrl: server.url, apiKey: server.liveKey })}
      memory={null}
      settings={SETTINGS}
      exit={exit}
      writeRaw={() => {}}
    />,
    { ...CHAT_RENDER_OPTIONS, stdout: terminal.stdout as never, stdin: stdin as never, stderr: terminal.stdout as never },
  );
  const ask = async (question: string, until: () => Promise<boolean>) => {
    stdin.write(question);
    stdin.write('\r');
    await vi.waitFor(async () => expect(await until()).toBe(true), { timeout: 10_000, interval: 20 });
  };
  return { instance, stdin, ask };
}

/** Markers in the order the terminal shows them, with how often each appears. */
function markersIn(lines: string[]) {
  const found = lines.flatMap((line) => [...line.matchAll(/\b([PCI]\d+x|ENDx)\b/g)].map((m) => m[1] as string));
  return found;
}

async function streamInto(columns: number, rows: number, options: { prior?: number; resizeTo?: [number, number] } = {}) {
  const { text, markers } = longAnswer(45, 40);
  answer = text;
  const terminal = headlessTerminal(columns, rows);
  const prior = Array.from({ length: options.prior ?? 0 }, (_, i) => `earlier output line ${i}`);
  if (prior.length) terminal.print(`${prior.join('\n')}\n`);
  const chat = await chatIn(terminal);
  let resized = false;
  await chat.ask('write me a long answer', async () => {
    const lines = await terminal.lines();
    if (options.resizeTo && !resized && markersIn(lines).length > 20) {
      resized = true;
      await terminal.resize(...options.resizeTo);
    }
    return lines.some((line) => line.includes('ENDx')) && lines.some((line) => line.includes('tokens'));
  });
  chat.instance.unmount();
  await terminal.settled();
  const lines = await terminal.lines();
  return { terminal, lines, markers, prior, text };
}

describe('a long streamed answer in a real terminal', () => {
  const sizes: [number, number][] = [
    [100, 30],
    [80, 24],
    [40, 20],
  ];
  for (const [columns, rows] of sizes) {
    it(`${columns}×${rows}: every line once, in order; the scrollback is never cleared`, async () => {
      const { terminal, lines, markers } = await streamInto(columns, rows, { prior: 10 });
      expect(markersIn(lines)).toEqual(markers);
      expect(terminal.raw()).not.toContain('\u001b[3J');
      expect(lines.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `earlier output line ${i}`));
      terminal.dispose();
    });
  }

  it('90 lines with a 40-line code block into 100×30 after 40 lines of scrollback: all kept, no clear, output a small multiple of the answer', async () => {
    const { terminal, lines, markers, prior, text } = await streamInto(100, 30, { prior: 40 });
    expect(text.split('\n').filter((line) => line.trim()).length).toBeGreaterThanOrEqual(90);
    expect(markersIn(lines)).toEqual(markers);
    expect(lines.slice(0, 40)).toEqual(prior);
    expect(terminal.raw()).not.toContain('\u001b[3J');
    expect(terminal.raw()).not.toContain('\u001b[2J');
    // Every frame redraws the few live rows; this answer of 90 short lines, each its own frame and
    // commit, is the costly case (npm run bench measures a realistic one). Before: 80× and more.
    expect(terminal.bytes()).toBeLessThan(text.length * 25);
    terminal.dispose();
  });

  it('a resize mid-stream re-wraps only what is live: nothing lost, nothing twice', async () => {
    const { terminal, lines, markers } = await streamInto(100, 30, { prior: 5, resizeTo: [70, 24] });
    expect(markersIn(lines)).toEqual(markers);
    expect(terminal.raw()).not.toContain('\u001b[3J');
    terminal.dispose();
  });
});

describe('replays and long messages in a real terminal', () => {
  it('/resume of a long conversation: every line once, in order, at 80×24', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openMemory } = await import('../../src/memory/index.js');
    const { chatMemory } = await import('../../src/chat/memory-adapter.js');
    const dir = mkdtempSync(join(tmpdir(), 'svc-resume-'));
    const memory = chatMemory(openMemory({ file: join(dir, 'memory.db'), embed: async (texts) => texts.map(() => new Array(8).fill(0.5)), embeddingModel: 'fake' }));
    const id = memory.startConversation('script/answer');
    const markers: string[] = [];
    for (let turn = 0; turn < 8; turn++) {
      memory.append(id, { role: 'user', content: `question Q${turn}x` });
      markers.push(`Q${turn}x`);
      const lines = Array.from({ length: 12 }, (_, i) => `Answer line A${turn}n${i}x of the turn.`);
      markers.push(...lines.map((line) => /A\d+n\d+x/.exec(line)?.[0] as string));
      memory.append(id, { role: 'assistant', content: lines.join('\n\n') });
    }
    const terminal = headlessTerminal(80, 24);
    const stdin = new FakeStdin();
    const instance = render(
      <ChatApp client={createClient({ baseUrl: server.url, apiKey: server.liveKey })} memory={memory} settings={SETTINGS} resume={id} exit={() => {}} writeRaw={() => {}} />,
      { ...CHAT_RENDER_OPTIONS, stdout: terminal.stdout as never, stdin: stdin as never, stderr: terminal.stdout as never },
    );
    await vi.waitFor(async () => expect((await terminal.lines()).some((line) => line.includes('A7n11x'))).toBe(true), { timeout: 10_000 });
    instance.unmount();
    const found = (await terminal.lines()).flatMap((line) => [...line.matchAll(/\b(Q\d+x|A\d+n\d+x)\b/g)].map((m) => m[1] as string));
    expect(found).toEqual(markers);
    expect(terminal.raw()).not.toContain('\u001b[3J');
    terminal.dispose();
    memory.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a question taller than the terminal goes to the scrollback whole', async () => {
    answer = 'Short answer ENDx.';
    const terminal = headlessTerminal(80, 24);
    const chat = await chatIn(terminal);
    const question = Array.from({ length: 60 }, (_, i) => `question line QL${i}x`).join('\n');
    await chat.ask(question, async () => (await terminal.lines()).some((line) => line.includes('ENDx')));
    chat.instance.unmount();
    const found = (await terminal.lines()).flatMap((line) => [...line.matchAll(/\bQL\d+x\b/g)].map((m) => m[0]));
    expect(found).toEqual(Array.from({ length: 60 }, (_, i) => `QL${i}x`));
    expect(terminal.raw()).not.toContain('\u001b[3J');
    terminal.dispose();
  });
});

