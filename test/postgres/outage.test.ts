import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API } from '../helpers/api.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The database dropping out from under a running server (a network cut, a restart): requests
 * answer 503 with Retry-After, never a 500, and the server serves again once it is back.
 */

/** A TCP relay to PostgreSQL that the test can cut (every connection dropped, new ones refused) and restore. */
async function cuttableRelay(target: URL) {
  const sockets = new Set<Socket>();
  let cut = false;
  const relay: Server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!testDatabaseUrl)('a database outage while serving', () => {
  it('answers 503 with Retry-After while the database is unreachable, and serves again when it is back', async () => {
    const schema = await freshSchema();
    const relay = await cuttableRelay(new URL(schema.url));
    try {
      const url = new URL(schema.url);
      url.hostname = '127.0.0.1';
      url.port = String(relay.port);
      server = await startTestServer({ dbPath: url.href });
      const balance = () => server!.call('GET', `${API}/credits/balance`);
      expect((await balance()).status).toBe(200);

      relay.cut();
      const during = await balance();
      expect(during.status, JSON.stringify(during.body)).toBe(503);
      expect(during.body.error).toMatchObject({ code: 'database_unavailable', type: 'service_unavailable' });
      expect(during.headers.get('retry-after')).toBe('1');

      relay.restore();
      expect((await balance()).status).toBe(200);
    } finally {
      await server?.close();
      server = undefined;
      await relay.close();
      await schema.drop();
    }
  });
});
