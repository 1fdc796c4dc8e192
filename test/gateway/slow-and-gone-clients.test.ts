import { once } from 'node:events';
import { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UsageEvent } from '../../server/store/types.js';
import { API } from '../helpers/api.js';
import { scriptedProvider } from '../helpers/providers.js';
import { openRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeUpstreams } from '../helpers/upstreams.js';

/** Clients that misbehave at the HTTP level: one that hangs up before its answer, one that reads a long stream slowly. */

let server: TestServer | undefined;
let upstreams: Awaited<ReturnType<typeof startFakeUpstreams>> | undefined;
afterEach(async () => {
  await server?.close();
  await upstreams?.close();
  server = upstreams = undefined;
});

/** Lets the event loop turn `n` times: the server, in this process, gets on with its work. */
async function turns(n: number) {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Waits until the server, in this process, has done something the test can only look at (a few seconds at most). */
async function until(condition: () => boolean) {
  for (let i = 0; i < 2_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a client that hangs up on a non-streamed request', () => {
  it('is recorded as client_closed, charged nothing, and never logged as a bug', async () => {
    upstreams = await startFakeUpstreams((urls) => [
      {
        id: 'acme',
        type: 'openai',
        base_url: urls.openai,
        api_key_env: 'FAKE_OPENAI_KEY',
        models: [{ id: 'gpt-fake', input_price: 0.5, output_price: 1.5, context_length: 8192 }],
      },
    ]);
    const { openai } = upstreams;
    const lines: string[] = [];
    server = await startTestServer({ providersFile: upstreams.file, env: upstreams.env, log: (line) => lines.push(line) });
    const settled = vi.spyOn(server.server.store.metering, 'settle');
    // The upstream takes the call and never answers: the client gives up first.
    openai.script({ kind: 'hang' });
    const { req, response } = openRequest(server.url, 'POST', `${API}/chat/completions`, {
      'x-api-key': server.liveKey,
      'content-type': 'application/json',
    });
    response.catch(() => {});
    req.end(JSON.stringify({ model: 'acme/gpt-fake', messages: [{ role: 'user', content: 'take your time' }] }));
    await until(() => openai.requests.length > 0);
    expect(openai.requests).toHaveLength(1);
    req.destroy();

    // The upstream call is aborted with the client's connection, and the request is settled.
    expect(await openai.requests[0]?.outcome).toBe('closed');
    await until(() => lines.length > 0);
    expect(settled).toHaveBeenCalledTimes(1);
    const [, , chargedMicro, usage] = settled.mock.calls[0] as [unknown, number, number, UsageEvent];
    expect(chargedMicro).toBe(0);
    expect(usage).toMatchObject({ status: 'canceled', errorCode: 'client_closed', outputTokens: 0 });
    expect(lines).toEqual([expect.stringMatching(/client closed the connection before its answer/)]);
    expect(lines.join('\n')).not.toMatch(/bug|unexpected error/i);
    const balance = await server.call('GET', `${API}/credits/balance`);
    expect(balance.body).toMatchObject({ credits: 100, held_credits: 0 });
  });
});

describe('a long stream to a slow reader', () => {
  it('waits for the reader again and again without piling up listeners', async () => {
    const CHUNKS = 10_000;
    let produced = 0;
    const provider = scriptedProvider(
      // 20 MB: several times what the kernel's socket buffers take in before the server must wait.
      () => 'x'.repeat(CHUNKS * 2_000),
      2_000,
      () => {
        produced += 1;
        return new Promise((resolve) => setImmediate(resolve));
      },
    );
    server = await startTestServer({ providers: [provider] });
    // The server's response (the only one in this test), to see when it waits and count its listeners.
    const writes = vi.spyOn(ServerResponse.prototype, 'write');
    const listenersOf = (res: ServerResponse) => res.eventNames().reduce((sum, name) => sum + res.listenerCount(name), 0);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const body = JSON.stringify({ model: 'script/answer', stream: true, messages: [{ role: 'user', content: 'a long one' }] });
      const socket = connect({ host: '127.0.0.1', port: server.server.port });
      await once(socket, 'connect');
      socket.write(
        `POST ${API}/chat/completions HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${server.liveKey}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      let ended = false;
      let wake = () => {};
      socket.on('readable', () => wake());
      socket.on('end', () => {
        ended = true;
        wake();
      });
      // A slow reader: it reads only while the server waits for the socket to drain, a buffer at
      // a time, and leaves the rest in the socket until the server waits again.
      const listeners: number[] = [];
      let waiting = false;
      let tail = '';
      let received = 0;
      while (!ended) {
        const res = writes.mock.contexts[0] as ServerResponse | undefined;
        const nowWaiting = res?.writableNeedDrain === true;
        if (res && nowWaiting && !waiting) listeners.push(listenersOf(res));
        waiting = nowWaiting;
        if (!waiting && produced < CHUNKS) {
          await turns(10);
          continue;
        }
        const chunk = socket.read() as Buffer | null;
        if (chunk) {
          received += chunk.length;
          tail = (tail + chunk.toString('latin1')).slice(-100);
        } else await new Promise<void>((resolve) => (wake = resolve));
      }
      expect(tail).toMatch(/data: \[DONE\]\n\n\r\n0\r\n\r\n$/);
      expect(received).toBeGreaterThan(CHUNKS * 2_000);
      // The server waited on the reader several times, with as many listeners each time.
      expect(listeners.length).toBeGreaterThanOrEqual(2);
      expect(new Set(listeners).size, `listeners at each wait: ${listeners.join(', ')}`).toBe(1);
      await turns(5);
      expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
    } finally {
      writes.mockRestore();
      process.off('warning', onWarning);
    }
  });
});
