import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyOperation } from '../src/contract/operation.js';
import { operations } from '../src/contract/operations/index.js';
import { VERSION } from '../src/version.js';
import { systemClock, type Clock } from './clock.js';
import { DEFAULT_CONNECTIONS_PER_CLIENT, ServerSettings } from './config.js';
import { handlers } from './handlers/index.js';
import { refuseClientError } from './http/client-errors.js';
import { capConnectionsPerClient } from './http/connections.js';
import { createPipeline } from './http/pipeline.js';
import { createRouter } from './http/router.js';
import { bootstrapOwner, type BootstrapResult } from './services/bootstrap.js';
import { createServices, type Services } from './services/index.js';
import { openStore } from './store/open.js';
import { collectOnceAfterStart, tuneGarbageCollection } from './gc-tuning.js';
import { interrupted } from './services/inference/responses.js';
import { gatewayFromConfig } from './providers/build.js';
import { createProviderRegistry, type UpstreamProvider } from './providers/registry.js';
import type { RouteDefinition } from './providers/routes-config.js';
import type { Store } from './store/types.js';
import { createPlanCatalog, type PlanCatalog } from './payments/plans.js';
import type { PaymentsMode } from './payments/processors.js';
import { metricsEndpoint } from './metrics/endpoint.js';
import { readServerEnvironment, setVariables, type ServerEnvironment } from './environment.js';
import { knownTargets } from './metrics/labels.js';
import { createMetricsObserver } from './metrics/observer.js';
import { everyObserver } from './metrics/every-observer.js';
import { traceExportFromEnv } from './metrics/traces.js';
import type { InferenceObserver } from './metrics/inference-observer.js';

export interface StartOptions extends ServerSettings {
  /** Upstream providers, built (tests inject fakes); else from `env` and the providers file. */
  providers?: UpstreamProvider[];
  /** Routes over injected `providers` (tests); else from the providers file. */
  routes?: RouteDefinition[];
  /** The providers file (`svc serve --providers`); `SVC_PROVIDERS` in `env` otherwise. */
  providersFile?: string;
  /** Where provider keys and settings are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  log?: (line: string) => void;
  /** More watchers of inference beside the metrics and the traces, by name (an embedder's, a test's). */
  observers?: Record<string, InferenceObserver>;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  store: Store;
  /** The database it serves: the SQLite file or the PostgreSQL URL it was given. */
  database: string;
  services: Services;
  /** What inference reports to (the metrics). */
  observer: InferenceObserver;
  /** Set when this start created the owner account on an empty database. */
  bootstrap: BootstrapResult | null;
  /** Stops accepting, lets requests in flight finish, then closes the database. */
  close(): Promise<void>;
}

/**
 * How live money comes in: the mode asked for (`--payments`, else SVC_PAYMENTS), else Stripe when
 * its keys are set, else off. One Stripe setting without the other is a mistake worth refusing to
 * start over, and so is `stripe` without them.
 */
function paymentsModeOf(asked: PaymentsMode | undefined, env: ServerEnvironment): PaymentsMode {
  const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret } = env;
  if (Boolean(secretKey) !== Boolean(webhookSecret)) {
    throw new Error('Set both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to use Stripe (or neither).');
  }
  const mode = asked ?? env.SVC_PAYMENTS ?? (secretKey ? 'stripe' : 'off');
  if (mode === 'stripe' && (!secretKey || !webhookSecret)) throw new Error('Payments mode stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET.');
  return mode;
}

/** The plans, with Stripe's prices when payments are Stripe's; a plan whose price is not configured there is not on sale, and said so at start. */
function planCatalogOf(mode: PaymentsMode, env: ServerEnvironment, log: (line: string) => void): PlanCatalog {
  const plans = createPlanCatalog(env, { realPrices: mode === 'stripe' });
  for (const variable of plans.unpriced) log(`payments: ${variable} is not set, so that plan is not on sale (Stripe needs its price id, price_…).`);
  return plans;
}

async function paymentsSetup(mode: PaymentsMode, env: ServerEnvironment, plans: PlanCatalog) {
  const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret } = env;
  if (mode !== 'stripe' || !secretKey || !webhookSecret) return { paymentsMode: mode };
  const { createStripeProcessor } = await import('./payments/stripe.js');
  return { paymentsMode: mode, stripe: await createStripeProcessor({ secretKey, webhookSecret, apiUrl: env.SVC_STRIPE_API_URL }, plans) };
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { providers, routes, providersFile, env = process.env, clock = systemClock, log = (line: string) => process.stderr.write(`${line}\n`), observers, ...rest } = options;
  const settings = ServerSettings.parse(rest);
  // Configuration errors surface before anything is opened.
  const environment = readServerEnvironment(env);
  const paymentsMode = paymentsModeOf(settings.payments, environment);
  const plans = planCatalogOf(paymentsMode, environment, log);
  const connectionsPerClient = settings.maxConnectionsPerClient ?? environment.SVC_MAX_CONNECTIONS_PER_CLIENT ?? DEFAULT_CONNECTIONS_PER_CLIENT;
  const gateway = providers ? { providers, routes: routes ?? [] } : gatewayFromConfig(env, providersFile ?? environment.SVC_PROVIDERS);
  const registry = createProviderRegistry(gateway.providers, gateway.routes);
  const metricsToken = settings.metricsToken ?? environment.SVC_METRICS_TOKEN;
  const webhookSecret = settings.paymentWebhookSecret ?? environment.SVC_PAYMENT_WEBHOOK_SECRET;
  const known = knownTargets(registry);
  const traces = traceExportFromEnv(setVariables(env), { known, clock, version: VERSION });
  // RSS that follows what the server holds, and request garbage that dies young (gc-tuning.ts).
  tuneGarbageCollection();
  const store = await openStore(settings.dbPath, {
    synchronous: environment.SVC_DB_SYNCHRONOUS ?? 'normal',
    ...(environment.SVC_PG_POOL !== undefined ? { poolSize: environment.SVC_PG_POOL } : {}),
    // The store's own timings (how long a shared breaker read answers again) by the server's clock.
    now: () => clock.now().getTime(),
    log,
  });
  const metrics = createMetricsObserver({ known, breakers: store.breakers });
  const observer = everyObserver({ metrics: metrics.observer, ...(traces ? { traces: traces.observer } : {}), ...observers }, log);
  let services: Services;
  try {
    services = createServices({
      store,
      clock,
      version: VERSION,
      registry,
      identityIssuer: settings.identityIssuer,
      rateLimits: { requestsPerMinute: settings.rateLimitRequestsPerMinute, tokensPerMinute: settings.rateLimitTokensPerMinute },
      maxBodyBytes: settings.maxBodyBytes,
      // Given, the sandbox processor's events can be signed from outside (scripts, tests); else a fresh secret per process.
      ...(webhookSecret !== undefined ? { webhookSecret } : {}),
      ...(environment.SVC_AGENTS ? { agentsFile: environment.SVC_AGENTS } : {}),
      ...(environment.SVC_POINTS_URL
        ? { points: { url: environment.SVC_POINTS_URL, creditsPerPoint: environment.SVC_POINTS_CREDITS_PER_POINT ?? 1 } }
        : {}),
      log,
      plans,
      observer,
      ...(await paymentsSetup(paymentsMode, environment, plans)),
    });
    await services.signingKeys.ready();
  } catch (error) {
    await store.close();
    throw error;
  }
  await store.responses.failInterrupted(interrupted('server_restarted', 'The server restarted while this response was running.'));

  const handle = createPipeline({
    router: createRouter(operations as readonly AnyOperation[]),
    handlers,
    services,
    maxBodyBytes: settings.maxBodyBytes,
    validateResponses: settings.validateResponses,
    log,
    metrics: metricsEndpoint({ token: metricsToken, scrape: metrics.scrape }),
  });
  let shuttingDown = false;
  // Timeouts bound how long a client may take to send a request; an answer (a stream) may take
  // as long as the model does. Keep-alive outlasts the common 60 s of load balancers. Node checks
  // the header and request deadlines on an interval (30 s by default, during which a slow client
  // keeps its slot): checked every second, a slow client is cut within a second of its deadline.
  const server: Server = createServer(
    {
      keepAliveTimeout: 65_000,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
    },
    (req, res) => {
      // Once shutdown has begun, a keep-alive connection must not outlive its last answer:
      // otherwise close() would wait out the whole grace period for idle sockets.
      res.on('finish', () => {
        if (shuttingDown) server.closeIdleConnections();
      });
      void handle(req, res);
    },
  );
  server.maxConnections = settings.maxConnections;
  capConnectionsPerClient(server, connectionsPerClient, log);
  server.on('clientError', refuseClientError);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  // Only once the server listens: the owner's keys are shown once, so a start that fails must
  // not create them.
  const bootstrap = await bootstrapOwner(
    { store, clock, apps: services.apps, apiKeys: services.apiKeys },
    settings.startingGrantCredits,
  );
  // Periods that ended while the server was down end now; later ones at their time.
  void services.billingClock.start();
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  // The old generation's limit from what the started server keeps (gc-tuning.ts).
  collectOnceAfterStart();
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    host: address.address,
    store,
    database: settings.dbPath,
    services,
    observer,
    bootstrap,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), settings.shutdownGraceMs);
        grace.unref();
        await stopped;
        clearTimeout(grace);
        await services.billingClock.stop();
        await services.responses.shutdown();
        await traces?.shutdown();
        await Promise.all(gateway.providers.map((provider) => provider.adapter.close?.()));
        await store.close();
      })();
      return closing;
    },
  };
}

export { checkLedger, createDeveloper, grantCredits, issueKey, listDevelopers, migrateDatabase } from './operator.js';
