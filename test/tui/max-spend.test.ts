import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/cli.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, startTerminal, type TerminalSession } from '../helpers/tmux.js';

/**
 * `svc chat --max-spend` in a real terminal (tmux) against a real server whose paid model is a
 * fake upstream: the chat runs on a key of its own whose budget is the cap, the server stops it
 * there, the chat says so, and the key is gone once the chat is.
 */

if (!hasTmux) console.warn('test/tui/max-spend.test.ts: tmux is not installed; the terminal test of svc chat --max-spend is skipped.');

const CAP = 40;
const TERMINAL_TEST_MS = 60_000;

interface KeyRow {
  key_id: string;
  name: string;
  role: string;
  budget_credits: number | null;
  budget_spent_credits: number | null;
  expires_at: string | null;
}

describe.skipIf(!hasTmux)('svc chat --max-spend in a terminal (tmux)', () => {
  let server: TestServer;
  let terminal: TerminalSession | null = null;

  beforeAll(async () => {
    server = await startTestServer({ providers: [pricedProvider()] });
  });
  afterAll(async () => {
    terminal?.close();
    await server?.close();
    removeTempDirs();
  });

  const keys = async () => ((await server.call('GET', `/api/v1/developer/apps/${server.appUuid}/api-keys`)).body as { data: KeyRow[] }).data;
  const balance = async () => ((await server.call('GET', '/api/v1/credits/balance')).body as { credits: number }).credits;

  it(`stops at the cap of ${CAP} credits, says so, and deletes the session's key at exit`, async () => {
    const before = await balance();
    const home = tempDir();
    const session = startTerminal('max-spend', ['chat', '--api-url', server.url, '--model', 'paid/echo', '--no-tools', '--max-spend', String(CAP)], { columns: 100, rows: 30 }, {
      SVC_API_KEY: server.liveKey,
      SVC_HOME: home,
      HOME: home,
    });
    terminal = session;
    await session.showing('Ask anything');
    expect(session.screen()).toContain(`session 0 of max ${CAP}`);
    // The chat's own key: inference only, the cap as its budget, expiring within hours.
    const capped = (await keys()).filter((key) => key.name.startsWith('svc chat --max-spend'));
    expect(capped).toHaveLength(1);
    expect(capped[0]).toMatchObject({ role: 'inference', budget_credits: CAP });
    expect(capped[0]?.expires_at).not.toBeNull();

    let asked = 0;
    while (!session.screen().includes('Spending cap reached') && asked < 12) {
      session.send(`question number ${asked}`, { literal: true });
      session.send('Enter');
      const question = `question number ${asked}`;
      await session.poll(`the answer to ${question} or the cap`, () => {
        const screen = session.screen();
        return screen.includes('Spending cap reached') || (screen.includes(`said:\n\n${question}`) && /Ask anything/.test(screen));
      });
      asked++;
    }
    await session.poll('the refusal in full and the prompt back', () => /Spending cap reached[\s\S]*Ask anything/.test(session.screen()));
    const screen = session.screen().replace(/\s+/g, ' ');
    expect(screen).toContain(`this session may spend ${CAP} credits (--max-spend), and the server refuses what would cost more`);
    expect(screen).toContain('start `svc chat` again');
    expect(asked).toBeGreaterThan(1);

    // The server kept the cap: what the key spent, and what left the balance, is within it.
    const spent = (await keys()).find((key) => key.key_id === capped[0]?.key_id)?.budget_spent_credits ?? NaN;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(CAP);
    expect(before - (await balance())).toBeCloseTo(spent, 6);
    const shown = Number(new RegExp(`session ([\\d.]+) of max ${CAP}`).exec(session.screen())?.[1]);
    expect(shown).toBeCloseTo(spent, 1);

    session.send('C-d');
    expect(await session.exitCode()).toBe(0);
    expect((await keys()).map((key) => key.key_id)).not.toContain(capped[0]?.key_id);
  }, TERMINAL_TEST_MS);
});
