import { z } from 'zod';
import type { Clock } from '../clock.js';
import { invalidRequest, notFound } from '../errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { RouteDefinition } from '../providers/routes-config.js';
import type { ModelEntry } from '../providers/types.js';
import { pricingOf } from './model-pricing.js';

/** The opaque page token: where the last page ended, and the filter it was made for. */
const PageToken = z.strictObject({ after: z.string(), provider: z.string().nullable() });

const encode = (token: z.infer<typeof PageToken>) => Buffer.from(JSON.stringify(token)).toString('base64url');

function decode(text: string): z.infer<typeof PageToken> {
  try {
    return PageToken.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw invalidRequest('page_token is not a token this server issued; use next_page_token from the previous page.', 'page_token');
  }
}

export function createModelsService(deps: { registry: ProviderRegistry; clock: Clock }) {
  // Models have no creation time of their own: they appear when the server starts with them.
  const created = Math.floor(deps.clock.now().getTime() / 1000);
  const present = (entry: ModelEntry) => ({
    id: entry.id,
    object: 'model' as const,
    created,
    owned_by: entry.provider,
    provider: entry.provider,
    context_length: entry.contextLength,
    pricing: pricingOf(entry),
    capabilities: entry.capabilities,
  });

  /**
   * A route as a model: priced as its dearest target (what a request is held for), with the
   * largest window of its targets (a context-length failure moves on to it) and what any target can do.
   */
  const byId = new Map(deps.registry.models().map((entry) => [entry.id, entry]));
  const presentRoute = (route: RouteDefinition) => {
    const targets = route.targets.flatMap((target) => byId.get(target.model) ?? []);
    const dearest = targets.reduce((a, b) => (b.inputPrice + b.outputPrice > a.inputPrice + a.outputPrice ? b : a));
    const windows = targets.map((entry) => entry.contextLength);
    return {
      ...present(dearest),
      id: route.id,
      owned_by: 'route',
      provider: 'route',
      context_length: windows.includes(null) ? null : Math.max(...(windows as number[])),
      capabilities: [...new Set(targets.flatMap((entry) => entry.capabilities))],
      route: { strategy: route.strategy, targets: route.targets.map(({ model, weight }) => ({ model, weight })) },
    };
  };
  /** Models and routes alike, by id, each as an entry that presents itself. */
  const listed = () =>
    [
      ...deps.registry.models().map((entry) => ({ id: entry.id, provider: entry.provider, model: entry.model, openai: () => present(entry) })),
      ...deps.registry.routes().map((route) => ({ id: route.id, provider: 'route', model: route.id, openai: () => presentRoute(route) })),
    ].sort((a, b) => a.id.localeCompare(b.id));

  const createdAt = new Date(created * 1000).toISOString();
  /** Anthropic's shape: the id is the gateway's, which the Messages API takes as `model`. */
  const presentAnthropic = (entry: { id: string; model: string }) => ({ type: 'model' as const, id: entry.id, display_name: entry.model, created_at: createdAt });

  function find(id: string) {
    const entry = listed().find((model) => model.id === id);
    if (!entry) throw notFound(`No model '${id}' on this server; GET /models lists them.`, 'model_not_found', 'model');
    return entry;
  }

  return {
    /** A model by id, or a 404 naming it; in Anthropic's shape for an Anthropic client. */
    get(id: string, shape: 'openai' | 'anthropic' = 'openai') {
      const entry = find(id);
      return shape === 'anthropic' ? presentAnthropic(entry) : entry.openai();
    },

    /** Anthropic's Models API list: `limit` (default 20), `after_id` or `before_id`, `has_more`, `first_id`, `last_id`. */
    listAnthropic(query: { provider?: string; limit?: number | undefined; after_id?: string; before_id?: string }) {
      if (query.after_id !== undefined && query.before_id !== undefined) {
        throw invalidRequest('Give after_id or before_id, not both.', 'before_id');
      }
      const matching = listed().filter((entry) => query.provider === undefined || entry.provider === query.provider);
      const limit = query.limit ?? 20;
      const anchor = query.after_id ?? query.before_id;
      const at = anchor === undefined ? -1 : matching.findIndex((entry) => entry.id === anchor);
      if (anchor !== undefined && at < 0) throw invalidRequest(`No model '${anchor}' to page from.`, query.after_id !== undefined ? 'after_id' : 'before_id');
      const [from, to] = query.before_id !== undefined ? [Math.max(0, at - limit), at] : [at + 1, at + 1 + limit];
      const page = matching.slice(from, to);
      return {
        data: page.map(presentAnthropic),
        has_more: query.before_id !== undefined ? from > 0 : to < matching.length,
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
      };
    },

    list(query: { provider?: string; page_size?: number | undefined; page_token?: string }) {
      const provider = query.provider ?? null;
      const after = query.page_token === undefined ? null : decode(query.page_token);
      if (after && after.provider !== provider) {
        throw invalidRequest('page_token was issued for another provider filter; repeat the same filter.', 'page_token');
      }
      const matching = listed().filter((entry) => provider === null || entry.provider === provider);
      const from = after ? matching.findIndex((entry) => entry.id.localeCompare(after.after) > 0) : 0;
      // Without page_size: every model, as OpenAI's list answers (its SDK reads one page only).
      const size = query.page_size ?? matching.length;
      const page = from < 0 ? [] : matching.slice(from, from + size);
      const last = page.at(-1);
      const more = from >= 0 && from + size < matching.length;
      return {
        object: 'list' as const,
        data: page.map((entry) => entry.openai()),
        next_page_token: more && last ? encode({ after: last.id, provider }) : null,
      };
    },
  };
}
