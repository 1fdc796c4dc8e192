import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Without SVC_METRICS_TOKEN, /metrics answers this host only. A web page can reach this host too:
 * a name its owner controls, rebound to 127.0.0.1 after the page loaded (DNS rebinding), makes a
 * browser on this host send the page's requests to the server from loopback, with no forwarding
 * header, as the page's own origin — so the page reads the answer. What tells those requests
 * apart is the Host they name: the page's name, not this host's.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const scrapeAs = (host: string | null) => rawRequest(t.url, 'GET', '/metrics', { headers: host === null ? {} : { host } });

describe('a loopback scrape without SVC_METRICS_TOKEN', () => {
  it('naming another host (a rebound name) is refused, and the refusal says how to scrape', async () => {
    for (const host of [`rebind.attacker.example:${t.server.port}`, 'rebind.attacker.example', `203.0.113.7:${t.server.port}`, `localhost.attacker.example:${t.server.port}`]) {
      const answer = await scrapeAs(host);
      expect({ host, status: answer.status }).toEqual({ host, status: 403 });
      expect(answer.body.error.code).toBe('metrics_loopback_only');
      expect(answer.body.error.message).toContain('SVC_METRICS_TOKEN');
    }
  });

  it('naming this host by a loopback name or address is served', async () => {
    for (const host of [`127.0.0.1:${t.server.port}`, `localhost:${t.server.port}`, 'localhost', `LOCALHOST:${t.server.port}`, `127.1.2.3:${t.server.port}`, `[::1]:${t.server.port}`, '[::1]']) {
      const answer = await scrapeAs(host);
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
  });
});
