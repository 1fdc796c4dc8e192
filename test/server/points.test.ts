import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bearer, expectApiError, expectStatus, sandboxUser } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A fake points program: answers `{points}` for an address, from a table the test sets. */
let program: Server;
let programUrl: string;
const points = new Map<string, number>();
beforeAll(async () => {
  program = createServer((req, res) => {
    const address = new URL(req.url ?? '/', 'http://x').searchParams.get('address') ?? '';
    if (req.url?.startsWith('/broken')) return res.writeHead(500).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ points: points.get(address) ?? 0 }));
  });
  await new Promise<void>((resolve) => program.listen(0, '127.0.0.1', resolve));
  programUrl = `http://127.0.0.1:${(program.address() as AddressInfo).port}/points`;
});
afterAll(() => new Promise((resolve) => program.close(resolve)));

/** A server with a points program (2 credits a point) and a signed-in sandbox user. */
async function setup(env: Record<string, string> = { SVC_POINTS_URL: programUrl, SVC_POINTS_CREDITS_PER_POINT: '2' }) {
  const t = await startTestServer({ env });
  const { token, address } = await sandboxUser(t);
  return { t, token, address };
}

const sync = (t: TestServer, token: string) => t.call('POST', `${API}/credits/sync-points`, bearer(token));

describe('credits sync-points', () => {
  it('converts the points not yet converted, once; a repeat grants nothing; new points grant again', async () => {
    const { t, token, address } = await setup();
    try {
      points.set(address, 10);
      const first = await sync(t, token);
      expectStatus(first, 200);
      expect(first.body).toMatchObject({ points: 10, converted_points: 10, granted_credits: 20, credits: 20 });
      expect((await sync(t, token)).body).toMatchObject({ granted_credits: 0, credits: 20 });
      points.set(address, 15);
      expect((await sync(t, token)).body).toMatchObject({ granted_credits: 10, credits: 30 });
      // Points that go down grant nothing, and take nothing back.
      points.set(address, 3);
      expect((await sync(t, token)).body).toMatchObject({ points: 3, converted_points: 15, granted_credits: 0, credits: 30 });
      expect(await t.server.store.credits.check()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('concurrent syncs grant once', async () => {
    const { t, token, address } = await setup();
    try {
      points.set(address, 7);
      const answers = await Promise.all(Array.from({ length: 10 }, () => sync(t, token)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers.reduce((sum, a) => sum + a.body.granted_credits, 0)).toBe(14);
    } finally {
      await t.close();
    }
  });

  it('is a 503 when no points program is configured, a 400 for an API key, a 502 when the program fails', async () => {
    const bare = await setup({});
    try {
      expectApiError(await sync(bare.t, bare.token), 503, { code: 'points_not_configured' });
    } finally {
      await bare.t.close();
    }
    const { t, token } = await setup({ SVC_POINTS_URL: programUrl.replace('/points', '/broken'), SVC_POINTS_CREDITS_PER_POINT: '1' });
    try {
      expectApiError(await t.call('POST', `${API}/credits/sync-points`), 400, { code: 'user_required' });
      expectApiError(await sync(t, token), 502, { code: 'points_unavailable' });
    } finally {
      await t.close();
    }
  });

  it('refuses to start with a conversion rate that is not a positive number', async () => {
    await expect(startTestServer({ env: { SVC_POINTS_URL: programUrl, SVC_POINTS_CREDITS_PER_POINT: 'lots' } })).rejects.toThrow(/positive number/);
  });
});
