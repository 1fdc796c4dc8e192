import { z } from 'zod';
import type { Clock } from '../clock.js';
import { invalidRequest, notFound } from '../errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ModelEntry } from '../providers/types.js';

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
    pricing: { input_per_million_usd: entry.inputPrice, output_per_million_usd: entry.outputPrice },
    capabilities: entry.capabilities,
  });

  return {
    /** A model by id, or a 404 naming it. */
    get(id: string) {
      const entry = deps.registry.models().find((model) => model.id === id);
      if (!entry) throw notFound(`No model '${id}' on this server; GET /models lists them.`, 'model_not_found', 'model');
      return present(entry);
    },

    list(query: { provider?: string; page_size?: number | undefined; page_token?: string }) {
      const provider = query.provider ?? null;
      const after = query.page_token === undefined ? null : decode(query.page_token);
      if (after && after.provider !== provider) {
        throw invalidRequest('page_token was issued for another provider filter; repeat the same filter.', 'page_token');
      }
      const matching = deps.registry
        .models()
        .filter((entry) => provider === null || entry.provider === provider)
        .sort((a, b) => a.id.localeCompare(b.id));
      const from = after ? matching.findIndex((entry) => entry.id.localeCompare(after.after) > 0) : 0;
      // Without page_size: every model, as OpenAI's list answers (its SDK reads one page only).
      const size = query.page_size ?? matching.length;
      const page = from < 0 ? [] : matching.slice(from, from + size);
      const last = page.at(-1);
      const more = from >= 0 && from + size < matching.length;
      return {
        object: 'list' as const,
        data: page.map(present),
        next_page_token: more && last ? encode({ after: last.id, provider }) : null,
      };
    },
  };
}
