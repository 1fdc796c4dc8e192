import { manualClock } from '../../server/clock.js';
import { startServer, type RunningServer, type StartOptions } from '../../server/app.js';

export interface TestServer {
  server: RunningServer;
  url: string;
  clock: ReturnType<typeof manualClock>;
  liveKey: string;
  testKey: string;
  appUuid: string;
  /** One HTTP call; `key: null` sends no credentials. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

/** The real server on port 0 with an in-memory database and a clock that only moves when told. */
export async function startTestServer(options: Partial<StartOptions> = {}): Promise<TestServer> {
  const clock = manualClock('2026-03-01T12:00:00.000Z');
  const server = await startServer({
    dbPath: ':memory:',
    port: 0,
    validateResponses: true,
    clock,
    log: () => {},
    // Hermetic: provider keys in the developer's environment never reach a test server.
    env: {},
    // Live purchases through the sandbox, as `svc serve --payments sandbox`, unless a test
    // configures Stripe or another mode.
    ...(options.env?.STRIPE_SECRET_KEY ? {} : { payments: 'sandbox' as const }),
    ...options,
  });
  const bootstrap = server.bootstrap;
  if (!bootstrap) throw new Error('expected a fresh database');
  return {
    server,
    url: server.url,
    clock,
    liveKey: bootstrap.liveKey,
    testKey: bootstrap.testKey,
    appUuid: bootstrap.appUuid,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? bootstrap.liveKey : opts.key;
      if (key) headers['x-api-key'] = key;
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    close: () => server.close(),
  };
}
