import { createAnthropicAdapter } from './anthropic/adapter.js';
import { readProvidersFile, resolveProviders, routesOf, type ResolvedProvider } from './config.js';
import { createOpenAIAdapter } from './openai/adapter.js';
import type { UpstreamProvider } from './registry.js';
import type { RouteDefinition } from './routes-config.js';
import { createUpstream, type UpstreamTimeouts } from './upstream.js';

/** The file's timeouts as the upstream takes them (what it leaves out keeps the default). */
function timeoutsOf(config: ResolvedProvider['config']): Partial<UpstreamTimeouts> {
  const { connect_ms: connectMs, first_byte_ms: firstByteMs, idle_ms: idleMs } = config.timeouts ?? {};
  return { ...(connectMs ? { connectMs } : {}), ...(firstByteMs ? { firstByteMs } : {}), ...(idleMs ? { idleMs } : {}) };
}

/** One configured provider as an adapter over a pooled upstream, with its priced models. */
export function buildProvider({ config, apiKey, models }: ResolvedProvider): UpstreamProvider {
  const retries = config.retries !== undefined ? { retries: config.retries } : {};
  const timeouts = timeoutsOf(config);
  if (config.type === 'anthropic') {
    const upstream = createUpstream({ provider: config.id, baseUrl: config.base_url, headers: apiKey ? { 'x-api-key': apiKey } : {}, timeouts });
    return { id: config.id, adapter: createAnthropicAdapter({ upstream }), models, ...retries };
  }
  const upstream = createUpstream({
    provider: config.id,
    baseUrl: config.base_url,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    timeouts,
  });
  return { id: config.id, adapter: createOpenAIAdapter({ upstream, supportsResponses: config.supports_responses ?? false }), models, ...retries };
}

/**
 * The upstream providers the environment (its provider keys) and the providers file configure
 * (the server passes `--providers`, else SVC_PROVIDERS). Throws ProvidersConfigError with a clear message.
 */
export function providersFromConfig(env: NodeJS.ProcessEnv, providersFile?: string): UpstreamProvider[] {
  return gatewayFromConfig(env, providersFile).providers;
}

/** The providers, and the routes over their models, that the environment and the providers file configure. */
export function gatewayFromConfig(env: NodeJS.ProcessEnv, providersFile?: string): { providers: UpstreamProvider[]; routes: RouteDefinition[] } {
  const file = providersFile ? readProvidersFile(providersFile) : null;
  const resolved = resolveProviders(env, file);
  const routes = routesOf(file, resolved);
  return { providers: resolved.map(buildProvider), routes };
}
