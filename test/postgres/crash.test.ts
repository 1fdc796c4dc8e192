import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai.js';
import { explain, removeTempDirs, runSvc, startServe, tempDir, type ServeProcess } from '../helpers/cli.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';

/**
 * Two `svc serve` processes (the built bundle) over one PostgreSQL database under a chat load;
 * one is killed with SIGKILL in the middle. Every request acknowledged (200) by either instance is
 * in the ledger exactly once, the ledger checks out, the survivor keeps serving, and the holds the
 * dead instance left are released once it is taken for dead.
 */

const children: ServeProcess[] = [];
let upstream: FakeOpenAI | undefined;
afterAll(async () => {
  await Promise.all(children.map((child) => child.stop('SIGKILL').catch(() => undefined)));
  await upstream?.close();
  removeTempDirs();
});

describe.skipIf(!testDatabaseUrl)('an instance killed with SIGKILL while another serves the same database', () => {
  it('loses no acknowledged charge, doubles none, and its holds are released', { timeout: 120_000 }, async () => {
    const schema = await freshSchema();
    const db = postgres(schema.url, { max: 1, onnotice: () => {} });
    try {
      const home = tempDir('svc-pg-crash-');
      upstream = await startFakeOpenAI({ apiKey: 'sk-pg-crash-0123456789' });
      const providers = join(home, 'providers.json');
      writeFileSync(
        providers,
        JSON.stringify({
          providers: [
            { id: 'paid', type: 'openai', base_url: upstream.url, api_key_env: 'PAID_API_KEY', models: [{ id: 'gpt-fake', input_price: 1000, output_price: 2000 }] },
          ],
        }),
      );
      const serve = async () => {
        const started = await startServe(['--port', '0', '--db', schema.url, '--providers', providers, '--starting-credits', '5000'], {
          home,
          env: { PAID_API_KEY: upstream!.apiKey },
        });
        children.push(started);
        return started;
      };
      const victim = await serve();
      const ownerKey = /live key: (svc_live_\S+)/.exec(victim.stdout())?.[1];
      if (!ownerKey) throw new Error(`no live key printed:\n${victim.stdout()}`);
      const survivor = await serve();
      expect(survivor.stdout(), 'the second instance must not create another owner').not.toMatch(/svc_live_/);

      const keyAnswer = await fetch(`${victim.url}/api/v1/developer/apps`, { headers: { 'x-api-key': ownerKey } });
      const appUuid = ((await keyAnswer.json()) as { data: { app_uuid: string }[] }).data[0]!.app_uuid;
      const inference = await fetch(`${victim.url}/api/v1/developer/apps/${appUuid}/api-keys`, {
        method: 'POST',
        headers: { 'x-api-key': ownerKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'load' }),
      });
      const key = ((await inference.json()) as { secret: string }).secret;

      const acknowledged: string[] = [];
      let sent = 0;
      let killed = false;
      const one = async (url: string) => {
        try {
          const answer = await fetch(`${url}/api/v1/chat/completions`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'paid/gpt-fake', max_tokens: 20, messages: [{ role: 'user', content: `load ${sent}` }] }),
          });
          if (answer.status === 200) {
            await answer.json();
            acknowledged.push(answer.headers.get('x-request-id')!);
          }
        } catch {
          // The victim died with this request in flight: its outcome is unknown, as for any client.
        }
      };
      const worker = async (index: number) => {
        while (sent < 400) {
          sent += 1;
          // Half the workers on each instance until the kill; then all on the survivor.
          await one(index % 2 && !killed ? victim.url : survivor.url);
          if (!killed && acknowledged.length >= 120) {
            killed = true;
            victim.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, (_, i) => worker(i)));
      expect(await victim.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      expect(killed).toBe(true);

      // Every acknowledged request was charged, exactly once.
      const rows = await db<{ idempotency_key: string; n: number }[]>`
        SELECT idempotency_key, COUNT(*)::int AS n FROM ledger_entries WHERE kind = 'inference' GROUP BY idempotency_key`;
      const charged = new Map(rows.map((row) => [row.idempotency_key, row.n]));
      expect(acknowledged.filter((id) => charged.get(`usage:${id}`) !== 1)).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(120);

      // The survivor still serves, and the ledger checks out.
      await one(survivor.url);
      const check = await runSvc(['serve', '--check', '--db', schema.url], { home });
      expect(check.code, explain(check)).toBe(0);

      // Once the victim is taken for dead (its heartbeat is old), the next sweep releases its holds.
      expect(await survivor.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      await db`UPDATE instances SET seen_at = now() - interval '1 hour'`;
      const next = await serve();
      const [left] = await db<{ held: number; holds: number }[]>`
        SELECT (SELECT COALESCE(SUM(held_micro), 0)::int FROM accounts) AS held, (SELECT COUNT(*)::int FROM holds) AS holds`;
      expect(left).toEqual({ held: 0, holds: 0 });
      expect(await next.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const recheck = await runSvc(['serve', '--check', '--db', schema.url], { home });
      expect(recheck.code, explain(recheck)).toBe(0);
    } finally {
      await db.end();
      await schema.drop();
    }
  });
});
