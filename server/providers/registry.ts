import { ApiError, invalidRequest, notFound } from '../errors.js';
import { createLocalAdapter, localModels } from './local/adapter.js';
import { isRouteId, type RouteDefinition } from './routes-config.js';
import type { ModelEntry, ProviderAdapter } from './types.js';

export interface ResolvedModel {
  entry: ModelEntry;
  adapter: ProviderAdapter;
  /** Retries of the same target before moving on (unset: the routing default). */
  retries?: number;
}

/**
 * The models this server can serve, by `<provider>/<model>` id. The `local` provider is always
 * present; upstream providers are added from the environment and the providers file.
 */
export interface UpstreamProvider {
  id: string;
  adapter: ProviderAdapter;
  models: ModelEntry[];
  /** Retries of one of its models before a request moves on (unset: the routing default; 0 passes a failure on at once). */
  retries?: number;
}

/** What a request names: one model, or a route (`route/<name>`), each in the order to try them. */
export interface Requested {
  /** The id as the request named it (a route's `route/<name>`, or the model's id). */
  id: string;
  /** The route's strategy; a single model is a route of one target. */
  strategy: RouteDefinition['strategy'];
  targets: (ResolvedModel & { weight: number })[];
}

/** `models[i]` as the param of an error about a request's fallback list. */
function inFallbacks(error: unknown, index: number): unknown {
  if (!(error instanceof ApiError) || index === 0) return error;
  return new ApiError(error.status, error.type, error.message, error.code, `models[${index - 1}]`, error.headers);
}

export function createProviderRegistry(providers: UpstreamProvider[] = [], routeDefinitions: RouteDefinition[] = []) {
  const all = [{ id: 'local', adapter: createLocalAdapter(), models: localModels }, ...providers];
  const byProvider = new Map(all.map((p) => [p.id, p]));
  const models = all.flatMap((p) => p.models);
  const routes = new Map(routeDefinitions.map((route) => [route.id, route]));

  const registry = {
    models: () => models,
    providerIds: () => all.map((p) => p.id),
    /** The routes of the providers file, by id (`route/<name>`). */
    routes: () => routeDefinitions,

    /**
     * What each id of a request stands for: `model` first, then its `models` fallbacks (OpenRouter's
     * list), each a model or a route. A route's targets that lack the capability are left out; a
     * route with none left, and an unknown id, are refused like an unknown model.
     */
    requested(ids: string[], capability: ModelEntry['capabilities'][number]): Requested[] {
      return ids.map((id, index) => {
        try {
          const route = routes.get(id);
          if (!route) {
            if (isRouteId(id)) throw notFound(`No route '${id}' on this server (GET /api/v1/models lists routes and models).`, 'model_not_found', 'model');
            // `resolve` gives a fresh object: the weight goes on it, not on a spread copy (#28).
            return { id, strategy: 'fallback', targets: [Object.assign(registry.resolve(id, capability), { weight: 1 })] };
          }
          const targets = route.targets.flatMap((target) => {
            const resolved = registry.lookup(target.model);
            return resolved.entry.capabilities.includes(capability) ? [{ ...resolved, weight: target.weight }] : [];
          });
          if (targets.length === 0) throw invalidRequest(`No target of the route '${id}' supports ${capability}.`, 'model', 'model_not_supported');
          return { id, strategy: route.strategy, targets };
        } catch (error) {
          throw inFallbacks(error, index);
        }
      });
    },

    /** The model behind an id, or a 404 that says what went wrong (like OpenAI's model_not_found). */
    lookup(modelId: string): ResolvedModel {
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
      const resolved: ResolvedModel = { entry, adapter: provider.adapter };
      if (provider.retries !== undefined) resolved.retries = provider.retries;
      return resolved;
    },

    /** `lookup`, for a model that must have `capability`. */
    resolve(modelId: string, capability: ModelEntry['capabilities'][number]): ResolvedModel {
      const resolved = registry.lookup(modelId);
      if (!resolved.entry.capabilities.includes(capability)) {
        throw invalidRequest(`The model '${modelId}' does not support ${capability}.`, 'model', 'model_not_supported');
      }
      return resolved;
    },
  };
  return registry;
}

export type ProviderRegistry = ReturnType<typeof createProviderRegistry>;
