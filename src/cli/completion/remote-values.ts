import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '../../client/client.js';
import { VERSION } from '../../version.js';
import type { DynamicSource } from './complete.js';

/** How long a fetched list is used before asking the server again: models change rarely, apps more often. */
const FRESH_MS: Record<DynamicSource, number> = { models: 10 * 60_000, apps: 60_000 };

/** Tab must answer at once: a server slower than this is no help. */
export const LOOKUP_TIMEOUT_MS = 1_500;

interface Cached {
  at: number;
  values: string[];
}

const REQUESTS: Record<DynamicSource, { path: string; query: Record<string, string>; pick: (item: Record<string, unknown>) => unknown }> = {
  models: { path: '/models', query: {}, pick: (item) => item.id },
  apps: { path: '/developer/apps', query: { limit: '100' }, pick: (item) => item.app_uuid },
};

/**
 * The models or app ids the server at `apiUrl` has, for completion: from a cache in
 * `~/.svc/cache` while fresh, else asked with a short timeout. A server that does not answer
 * in time (or at all) gives the last list it gave, or nothing.
 */
export async function remoteValues(
  source: DynamicSource,
  connection: { home: string; apiUrl: string; apiKey: string | undefined },
  now: () => number = Date.now,
): Promise<string[]> {
  const key = createHash('sha256').update(`${connection.apiUrl}\n${connection.apiKey ?? ''}`).digest('hex').slice(0, 16);
  const dir = join(connection.home, 'cache');
  const file = join(dir, `completion-${source}-${key}.json`);
  const cached = readCache(file);
  if (cached && now() - cached.at < FRESH_MS[source]) return cached.values;
  const request = REQUESTS[source];
  try {
    const client = createClient({ baseUrl: connection.apiUrl, apiKey: connection.apiKey, userAgent: `svc-cli/${VERSION}` });
    const page = (await client.call({ method: 'GET', path: request.path }, { query: request.query, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) })) as {
      data?: Array<Record<string, unknown>>;
    };
    const values = (page.data ?? []).map(request.pick).filter((value): value is string => typeof value === 'string');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written aside and renamed, so a Tab pressed in another terminal never reads half a file.
    writeFileSync(`${file}.${process.pid}`, JSON.stringify({ at: now(), values } satisfies Cached), { mode: 0o600 });
    renameSync(`${file}.${process.pid}`, file);
    return values;
  } catch {
    return cached?.values ?? [];
  }
}

function readCache(file: string): Cached | null {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Partial<Cached>;
    return typeof json.at === 'number' && Array.isArray(json.values) ? { at: json.at, values: json.values.filter((v) => typeof v === 'string') } : null;
  } catch {
    return null;
  }
}
