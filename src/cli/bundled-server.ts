import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { openConfig } from './config.js';
import { loadServer } from './lazy.js';

type Config = ReturnType<typeof openConfig>;

/**
 * Starts the server bundled with the CLI on this machine's SQLite database (`svc serve`, and
 * `svc chat` when no server answers). On an empty database the owner's keys are created; the
 * live key and URL are saved in the config when it has no key yet, so the CLI works at once.
 */
export async function startBundledServer(
  config: Config,
  options: { host: string; port: number; db?: string; startingCredits: number; providersFile?: string; payments?: 'stripe' | 'sandbox' | 'off' },
) {
  mkdirSync(config.home, { recursive: true, mode: 0o700 });
  const { startServer } = await loadServer();
  const server = await startServer({
    host: options.host,
    port: options.port,
    dbPath: options.db ?? join(config.home, 'server.db'),
    startingGrantCredits: options.startingCredits,
    ...(options.providersFile ? { providersFile: options.providersFile } : {}),
    ...(options.payments ? { payments: options.payments } : {}),
  });
  let savedKey = false;
  if (server.bootstrap && !config.values.api_key) {
    // A port picked for this start only (`--port 0`) is no address to come back to.
    config.set({ api_key: server.bootstrap.liveKey, ...(options.port !== 0 ? { api_url: server.url } : {}) });
    savedKey = true;
  }
  return { server, savedKey, savedUrl: savedKey && options.port !== 0 };
}
