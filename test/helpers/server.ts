import { manualClock } from '../../server/clock.js';
import { startServer, type RunningServer, type StartOptions } from '../../server/app.js';
import { freshSchema, onPostgres } from './postgres.js';

export interface TestServer {
  server: RunningServer;
  url: string;
  /** Where its data is (a PostgreSQL URL in the `postgres` project). */
  database: string;
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

const serverDefaults = (clock: ReturnType<typeof manualClock>, options: Partial<StartOptions>) => ({
  port: 0,
  validateResponses: true,
  clock,
  log: () => {},
  // Hermetic: provider keys in the developer's environment never reach a test server.
  env: {},
  // Live purchases through the sandbox, as `svc serve --payments sandbox`, unless a test
  // configures Stripe or another mode.
  ...(options.env?.STRIPE_SECRET_KEY ? {} : { payments: 'sandbox' as const }),
});

/**
 * The real server on port 0 with an in-memory database (a fresh PostgreSQL schema in the
 * `postgres` project) and a clock that only moves when told.
 */
export async function startTestServer(options: Partial<StartOptions> = {}): Promise<TestServer> {
  const clock = manualClock('2026-03-01T12:00:00.000Z');
  const schema = onPostgres && options.dbPath === undefined ? await freshSchema() : null;
  const server = await startServer({ dbPath: schema?.url ?? ':memory:', ...serverDefaults(clock, options), ...options });
  const bootstrap = server.bootstrap;
  if (!bootstrap) throw new Error('expected a fresh database');
  return testServerOf(server, clock, bootstrap, async () => {
    await server.close();
    await schema?.drop();
  });
}

/**
 * Another instance over the database of `first` (a PostgreSQL URL): the same clock and the same
 * owner keys, as a second `svc serve` behind one load balancer.
 */
export async function joinTestServer(first: TestServer, options: Partial<StartOptions> = {}): Promise<TestServer> {
  const server = await startServer({ dbPath: first.database, ...serverDefaults(first.clock, options), ...options });
  if (server.bootstrap) throw new Error('a joining instance found an empty database');
  return testServerOf(server, first.clock, first, () => server.close());
}

function testServerOf(
  server: RunningServer,
  clock: ReturnType<typeof manualClock>,
  owner: { liveKey: string; testKey: string; appUuid: string },
  close: () => Promise<void>,
): TestServer {
  // Closing twice (at once, or again later) closes once: a schema must be given back only once.
  let closing: Promise<void> | undefined;
  return {
    server,
    url: server.url,
    database: server.database,
    clock,
    liveKey: owner.liveKey,
    testKey: owner.testKey,
    appUuid: owner.appUuid,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? owner.liveKey : opts.key;
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
    close: () => (closing ??= close()),
  };
}
