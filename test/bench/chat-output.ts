import { chatOnScreen } from './lib/chat-screen.js';
import { printTable } from './lib/table.js';

/** A realistic answer: paragraphs of prose, a code block, a list, about 2.6 KB of markdown. */
function answer(): string {
  const prose = (n: number) =>
    `Paragraph ${n}: holds reserve the most a request can cost before the upstream call, and the charge settles what it really cost, so that concurrent requests never overdraw an account.`;
  const code = ['```ts', ...Array.from({ length: 24 }, (_, i) => `  const step${i} = await ledger.post(account, { amountMicro: ${i * 1000} });`), '```'];
  const list = Array.from({ length: 6 }, (_, i) => `- point ${i}: \`svc api credits balance\` shows it`);
  return [prose(1), prose(2), prose(3), code.join('\n'), prose(4), list.join('\n'), prose(5)].join('\n\n');
}

/**
 * Bytes and frames `svc chat` writes to draw one streamed answer (issue: a chat that never loses a
 * line): the chat, drawn by Ink as in production, into a headless terminal, the answer streaming
 * at about 200 characters a second. Output should stay a small multiple of the answer.
 */
export async function chatOutput(): Promise<void> {
  const [{ startTestServer }, { scriptedProvider }] = await Promise.all([import('../helpers/server.js'), import('../helpers/providers.js')]);
  const text = answer();
  const server = await startTestServer({ providers: [scriptedProvider(() => text, 9, () => new Promise((resolve) => setTimeout(resolve, 40)))] });
  const rows: string[][] = [];
  try {
    for (const [columns, height] of [
      [100, 30],
      [80, 24],
      [40, 20],
    ] as const) {
      const { terminal, stdin, onWrite, unmount } = await chatOnScreen({ server, columns, rows: height, settings: { model: 'script/answer' } });
      let writes = 0;
      onWrite(() => writes++);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = { bytes: terminal.bytes(), writes };
      stdin.write('explain holds');
      stdin.write('\r');
      const started = Date.now();
      while (!(await terminal.lines()).some((line) => /tokens · [\d.]+ credits · balance/.test(line)) && Date.now() - started < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const bytes = terminal.bytes() - before.bytes;
      unmount();
      const lost = !(await terminal.lines()).some((line) => line.includes('Paragraph 5'));
      rows.push([
        `${columns}×${height}`,
        `${text.length} B`,
        `${bytes} B`,
        `${(bytes / text.length).toFixed(1)}×`,
        String(writes - before.writes),
        terminal.raw().includes('\u001b[3J') || lost ? 'cleared or lost lines!' : 'none',
      ]);
      terminal.dispose();
    }
  } finally {
    await server.close();
  }
  printTable(
    'svc chat output per streamed answer (Ink into a headless terminal; the answer streams ~200 chars/s)',
    ['terminal', 'answer', 'written', 'ratio', 'writes', 'scrollback cleared / lines lost'],
    rows,
  );
}
