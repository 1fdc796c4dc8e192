import { invalidRequest, notFound } from '../errors.js';
import { createLocalAdapter, localModels } from './local/adapter.js';
import type { ModelEntry, ProviderAdapter } from './types.js';

export interface ResolvedModel {
  entry: ModelEntry;
  adapter: ProviderAdapter;
}

/**
 * The models this server can serve, by `<provider>/<model>` id. The `local` provider is always
 * present; upstream providers are added from the environment and the providers file.
 */
export interface UpstreamProvider {
  id: string;
  adapter: ProviderAdapter;
  models: ModelEntry[];
}

export function createProviderRegistry(providers: UpstreamProvider[] = []) {
  const all = [{ id: 'local', adapter: createLocalAdapter(), models: localModels }, ...providers];
  const byProvider = new Map(all.map((p) => [p.id, p]));
  const models = all.flatMap((p) => p.models);

  return {
    models: () => models,
    providerIds: () => all.map((p) => p.id),

    /** The model behind an id, or a 404 that says what went wrong (like OpenAI's model_not_found). */
    resolve(modelId: string, capability: ModelEntry['capabilities'][number]): ResolvedModel {
      const slash = modelId.indexOf('/');
      const providerId = modelId.slice(0, slash);
      const provider = byProvider.get(providerId);
      if (!provider) {
        throw notFound(
          `The provider '${providerId}' is not configured on this server (configured: ${all.map((p) => p.id).join(', ')}).`,
          'model_not_found',
          'model',
        );
      }
      const entry = provider.models.find((m) => m.id === modelId);
      if (!entry) {
        throw notFound(
          `The model '${modelId}' does not exist or has no known price (GET /api/v1/models lists what is served).`,
          'model_not_found',
          'model',
        );
      }
      if (!entry.capabilities.includes(capability)) {
        throw invalidRequest(`The model '${modelId}' does not support ${capability}.`, 'model', 'model_not_supported');
      }
      return { entry, adapter: provider.adapter };
    },
  };
}

export type ProviderRegistry = ReturnType<typeof createProviderRegistry>;
