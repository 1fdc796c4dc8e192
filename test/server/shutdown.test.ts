import { Agent } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API } from '../helpers/api.js';
import { openRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const APPS = `${API}/developer/apps`;

/**
 * Resolves when the server has begun handling a request (it authenticates before it reads the
 * body), so a test can act while that request is in flight without sleeping.
 */
function whenRequestArrives(t: TestServer): Promise<void> {
  const auth = t.server.services.auth;
  const original = auth.authenticate.bind(auth);
  return new Promise((resolve) => {
    vi.spyOn(auth, 'authenticate').mockImplementation(async (...args) => {
      const principal = await original(...args);
      resolve();
      return principal;
    });
  });
}

describe('shutdown', () => {
  let t: TestServer | undefined;
  const agents: Agent[] = [];

  afterEach(async () => {
    vi.restoreAllMocks();
    for (const agent of agents.splice(0)) agent.destroy();
    await t?.close();
    t = undefined;
  });

  // Generous grace period: if close() waited for it, this test would time out instead.
  const start = async () => (t = await startTestServer({ shutdownGraceMs: 60_000 }));

  it.each([
    ['a closing connection', false],
    ['a keep-alive connection', true],
  ])(
    'lets a request in flight on %s finish, then closes the database',
    async (_, keepAlive) => {
      const server = await start();
      const agent = new Agent({ keepAlive });
      agents.push(agent);
      const arrived = whenRequestArrives(server);

      const body = JSON.stringify({ name: 'Finished during shutdown' });
      const { req, response } = openRequest(
        server.url,
        'POST',
        APPS,
        {
          'x-api-key': server.liveKey,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          connection: keepAlive ? 'keep-alive' : 'close',
        },
        agent,
      );
      req.write(body.slice(0, 10));
      await arrived;

      let closed = false;
      const closing = server.close().then(() => {
        closed = true;
      });
      // Shutdown waits for the request: the database is still open while its body is unread.
      await Promise.resolve();
      expect(closed).toBe(false);
      await expect(server.server.store.developers.count()).resolves.toBe(1);

      req.end(body.slice(10));
      const answer = await response;
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ name: 'Finished during shutdown' });

      await closing;
      expect(closed).toBe(true);
      await expect(server.server.store.developers.count()).rejects.toThrow();
    },
    10_000,
  );

  it('refuses new connections once closed', async () => {
    const server = await start();
    await server.close();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('can be asked to close more than once', async () => {
    const server = await start();
    await Promise.all([server.close(), server.close()]);
    await expect(server.close()).resolves.toBeUndefined();
  });
});
