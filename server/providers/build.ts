import { createAnthropicAdapter } from './anthropic/adapter.js';
import { readProvidersFile, resolveProviders, type ResolvedProvider } from './config.js';
import { createOpenAIAdapter } from './openai/adapter.js';
import type { UpstreamProvider } from './registry.js';
import { createUpstream } from './upstream.js';

/** One configured provider as an adapter over a pooled upstream, with its priced models. */
export function buildProvider({ config, apiKey, models }: ResolvedProvider): UpstreamProvider {
  if (config.type === 'anthropic') {
    const upstream = createUpstream({ provider: config.id, baseUrl: config.base_url, headers: apiKey ? { 'x-api-key': apiKey } : {} });
    return { id: config.id, adapter: createAnthropicAdapter({ upstream }), models };
  }
  const upstream = createUpstream({
    provider: config.id,
    baseUrl: config.base_url,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  });
  return { id: config.id, adapter: createOpenAIAdapter({ upstream, supportsResponses: config.supports_responses ?? false }), models };
}

/**
 * The upstream providers the environment and the providers file configure (the file from
 * `providersFile`, else `SVC_PROVIDERS`). Throws ProvidersConfigError with a clear message.
 */
export function providersFromConfig(env: NodeJS.ProcessEnv, providersFile?: string): UpstreamProvider[] {
  const path = providersFile ?? (env.SVC_PROVIDERS || undefined);
  return resolveProviders(env, path ? readProvidersFile(path) : null).map(buildProvider);
}
