import type { Clock } from '../clock.js';
import type { Store } from '../store/types.js';
import { createAuthenticator } from '../auth/authenticate.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { createApiKeysService } from './api-keys.js';
import { createAppsService } from './apps.js';
import { createIdpService } from './idp.js';
import { createChatService } from './inference/chat.js';
import { createEmbeddingsService } from './inference/embeddings.js';
import { createMessagesService } from './inference/messages.js';
import { createResponsesService } from './inference/responses.js';
import { createModelsService } from './models.js';
import { createSigningKeysService } from './signing-keys.js';
import { createUsageService } from './usage.js';
import { createRateLimitService, type RateLimitDefaults } from './rate-limits.js';
import { createTextService } from './text.js';
import { createAgentsService } from './agents.js';
import { createPublicConfigService } from './public-config.js';
import { createTasksService } from './tasks.js';
import { createUsersService } from './users.js';
import { createCreditsService } from './credits.js';
import { createPaymentsService } from './payments.js';
import { createPointsService, type PointsProgram } from './points.js';
import { randomBytes, type JsonWebKey } from 'node:crypto';
import { createSandboxProcessor } from '../payments/sandbox.js';
import type { PaymentProcessor } from '../payments/processor.js';
import { createProcessors, type PaymentsMode } from '../payments/processors.js';
import { createPlanCatalog, type PlanCatalog } from '../payments/plans.js';
import { createSubscriptionsService } from './subscriptions/service.js';
import { createBillingClock } from './subscriptions/billing-clock.js';
import { createRateMultipliers } from './subscriptions/rate-multipliers.js';
import { createSubscriptionReports } from './subscriptions/reports.js';
import { createWebhookReceiver } from './webhook.js';
import type { InferenceObserver } from '../metrics/inference-observer.js';
import { createProviderStatusService } from './provider-status.js';

export interface ServiceDeps {
  store: Store;
  clock: Clock;
  version: string;
  registry: ProviderRegistry;
  /** The `iss` identity tokens must carry. */
  identityIssuer: string;
  rateLimits: RateLimitDefaults;
  /** The request body limit, as GET /config reports it. */
  maxBodyBytes?: number;
  /** The agents file (`SVC_AGENTS`), added to the shipped catalog. */
  agentsFile?: string;
  /** Signs and verifies payment events (a fresh one per process when not given). */
  webhookSecret?: string;
  /** The external points program (`SVC_POINTS_URL`), if any. */
  points?: PointsProgram | null;
  /** The plans on sale (their price ids are the processor's). */
  plans?: PlanCatalog;
  /** How live money comes in (`off` unless said); test mode always uses the sandbox. */
  paymentsMode?: PaymentsMode;
  /** The Stripe processor, for `paymentsMode: 'stripe'`. */
  stripe?: PaymentProcessor;
  log?: (line: string) => void;
  /** Who watches inference (metrics); nobody when not given. */
  observer?: InferenceObserver;
}

/** The payment side: processor, checkout sessions, subscriptions, their clock and the webhook receiver. */
function createMoney(deps: ServiceDeps) {
  const plans = deps.plans ?? createPlanCatalog();
  const sandbox = createSandboxProcessor({ ...deps, plans, webhookSecret: deps.webhookSecret ?? randomBytes(32).toString('hex') });
  const processors = createProcessors(deps.paymentsMode ?? 'off', sandbox, deps.stripe ?? null);
  const payments = createPaymentsService({ ...deps, processors });
  const billingClock = createBillingClock({ ...deps, plans, processors, log: deps.log ?? (() => {}) });
  const rateMultipliers = createRateMultipliers({ ...deps, plans });
  const reports = createSubscriptionReports({ ...deps, plans, multipliers: rateMultipliers, onPeriodsChanged: billingClock.replan });
  const subscriptions = createSubscriptionsService({ ...deps, plans, processors, payments, reports });
  const webhook = createWebhookReceiver({ ...deps, processors, reports });
  sandbox.connect(webhook);
  return { payments, subscriptions, billingClock, webhook, processors, rateMultipliers };
}

/** Every service, wired once per server. */
export function createServices(deps: ServiceDeps) {
  const signingKeys = createSigningKeysService(deps);
  const money = createMoney(deps);
  const limiter = createRateLimitService({ ...deps, planMultiplier: money.rateMultipliers.of });
  // Inference counts tokens against the rate limits as it settles.
  const inference = { ...deps, limiter };
  // One chat service behind both front doors: chat completions and the Anthropic Messages API.
  const chat = createChatService(inference);
  return {
    limiter,
    version: deps.version,
    clock: deps.clock,
    store: deps.store,
    auth: createAuthenticator({ ...deps, signingKeys }),
    apps: createAppsService(deps),
    apiKeys: createApiKeysService(deps),
    idp: createIdpService({ ...deps, sandboxKey: async () => (await signingKeys.current()).publicJwk as JsonWebKey }),
    users: createUsersService(deps),
    models: createModelsService(deps),
    chat,
    embeddings: createEmbeddingsService(inference),
    responses: createResponsesService(inference),
    messages: createMessagesService({ ...inference, chat }),
    usage: createUsageService(deps),
    providerStatus: createProviderStatusService(deps),
    signingKeys,
    text: createTextService(deps),
    agents: createAgentsService(deps, deps.agentsFile),
    publicConfig: createPublicConfigService(deps),
    tasks: createTasksService(),
    credits: createCreditsService(deps),
    points: createPointsService({ ...deps, points: deps.points ?? null }),
    ...money,
  };
}

export type Services = ReturnType<typeof createServices>;
