import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { clientOf } from '../../server/http/connections.js';
import { startTestServer } from '../helpers/server.js';

/**
 * One client opening thousands of slow sockets (slow loris) must not take the slots of everyone
 * else: each address holds at most its share, and sockets that never finish their headers are
 * closed at the header deadline. All on loopback: 127.0.0.0/8 reaches the server on 127.0.0.1
 * from any of its addresses, so each address below is a different client.
 */

/** This process's soft limit on open files (Linux), to keep the attack within it. */
function openFilesLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : 1024;
  } catch {
    return 1024;
  }
}

const PARTIAL_HEADERS = 'GET /health HTTP/1.1\r\nhost: localhost\r\nx-slow: ';

/**
 * `count` sockets from `localAddress` that send the start of a request and never finish it, nor
 * close their side (unless `closeWhenCut`: then a socket the server cuts is closed here too, and
 * gives its descriptor back at once). `cut` settles once the server has cut `n` of them;
 * `answers` keeps what the server wrote on each before cutting it. The first `silent` send
 * nothing at all.
 *
 * They are opened in batches, each once the server has dealt with the one before (kept `held`
 * of them, cut the rest): the client shares the server's event loop, and a batch opened before
 * the server has accepted the last one would overflow its accept queue (the kernel then retries
 * the connection after a second).
 */
async function slowLoris(port: number, localAddress: string, count: number, opts: { held: number; silent?: number; closeWhenCut: boolean }) {
  const sockets: Socket[] = [];
  const answers: string[] = [];
  let cutCount = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const onCut = () => {
    cutCount += 1;
    for (const waiter of waiters.filter((w) => cutCount >= w.n)) waiter.resolve();
  };
  const cut = (n: number) => (cutCount >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })));
  for (let start = 0; start < count; start += 200) {
    const batch = Array.from({ length: Math.min(200, count - start) }, (_, i) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen: true });
      sockets.push(socket);
      let answer = '';
      let seen = false;
      const cutHere = () => {
        if (seen) return;
        seen = true;
        answers.push(answer);
        if (opts.closeWhenCut) socket.destroy();
        onCut();
      };
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', cutHere);
      socket.on('close', cutHere);
      socket.on('error', () => {});
      return new Promise<void>((resolve) => {
        socket.once('connect', () => {
          // The first `silent` ones send nothing at all; the others the start of their headers.
          if (start + i >= (opts.silent ?? 0)) socket.write(PARTIAL_HEADERS);
          resolve();
        });
        socket.once('close', () => resolve());
      });
    });
    await Promise.all(batch);
    await cut(sockets.length - opts.held);
  }
  return {
    answers,
    cut,
    cutCount: () => cutCount,
    destroy: () => sockets.forEach((socket) => socket.destroy()),
  };
}

/** GET `path` from `localAddress`, on a connection of its own; the status. */
function getFrom(port: number, localAddress: string, path = '/health'): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

describe.skipIf(process.platform !== 'linux')('fair connections', () => {
  it('one address holding thousands of slow sockets gets its share; another client is served beside it', async () => {
    const attackers = Math.min(2_000, openFilesLimit() - 600);
    const perClient = 64;
    // Fewer slots than the attacker has sockets: without a share per client it would take them all.
    const t = await startTestServer({ maxConnections: Math.floor(attackers / 2), maxConnectionsPerClient: perClient });
    const port = t.server.port;
    const attack = await slowLoris(port, '127.0.0.1', attackers, { held: perClient, closeWhenCut: true });
    try {
      for (let i = 0; i < 5; i++) expect(await getFrom(port, '127.0.0.2')).toBe(200);
      const together = await Promise.all(Array.from({ length: 20 }, () => getFrom(port, '127.0.0.2')));
      expect(together).toEqual(Array(20).fill(200));
      // The attacker's share stays held (its headers are not late yet): exactly perClient of them.
      expect(attack.cutCount()).toBe(attackers - perClient);
      expect(attack.answers.every((answer) => answer === '')).toBe(true);
    } finally {
      attack.destroy();
      await t.close();
    }
  });

  it('sockets that never finish their headers are cut at the deadline with a 408, and their slots are free again', async () => {
    const perClient = 40;
    const t = await startTestServer({ maxConnectionsPerClient: perClient, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const port = t.server.port;
    // They never close their side, even once the server has closed its own: only the server
    // destroying its sockets frees their slots.
    const attack = await slowLoris(port, '127.0.0.3', perClient, { held: perClient, silent: 10, closeWhenCut: false });
    try {
      // While they hold the address's share, its next connection is refused.
      await expect(getFrom(port, '127.0.0.3')).rejects.toThrow();
      await attack.cut(perClient);
      for (const answer of attack.answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
          error: { message: expect.any(String), type: 'invalid_request_error', code: 'request_timeout', param: null },
        });
      }
      // The same address may hold its whole share again.
      const again = await Promise.all(Array.from({ length: perClient }, () => getFrom(port, '127.0.0.3')));
      expect(again).toEqual(Array(perClient).fill(200));
    } finally {
      attack.destroy();
      await t.close();
    }
  });
});

describe.skipIf(process.platform !== 'linux')('SVC_MAX_CONNECTIONS_PER_CLIENT', () => {
  it('sets the share of one client', async () => {
    const t = await startTestServer({ env: { SVC_MAX_CONNECTIONS_PER_CLIENT: '2' } });
    const held = await slowLoris(t.server.port, '127.0.0.4', 2, { held: 2, closeWhenCut: true });
    try {
      await expect(getFrom(t.server.port, '127.0.0.4')).rejects.toThrow();
      expect(await getFrom(t.server.port, '127.0.0.5')).toBe(200);
    } finally {
      held.destroy();
      await t.close();
    }
  });

  // Set but empty is unset, the default (test/contract/environment.test.ts).
  it.each(['0', '-1', '1.5', 'many'])('refuses to start with %j', async (value) => {
    // Refused before any database is opened.
    await expect(startServer({ dbPath: ':memory:', port: 0, log: () => {}, env: { SVC_MAX_CONNECTIONS_PER_CLIENT: value } })).rejects.toThrow(
      /SVC_MAX_CONNECTIONS_PER_CLIENT must be a whole number from 1/,
    );
  });
});

describe('whom a connection counts against', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s counts as %s', (address, client) => {
    expect(clientOf(address)).toBe(client);
  });
});
