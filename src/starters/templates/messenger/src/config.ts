import { loadDotEnv, platformSettings, required, type PlatformSettings } from './settings.js';
import { Problem } from './problem.js';

/** How the bot reaches the platform, which page it serves, and where it listens. */
export interface Config extends PlatformSettings {
  pageId: string;
  host: string;
  port: number;
}

/** What the platform accepts as a messenger identifier. */
const PAGE_ID = /^\d{5,32}$/;

function portOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Problem(`PORT must be a port number from 0 to 65535 (got ${JSON.stringify(text)}).`);
  }
  return port;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  loadDotEnv();
  const pageId = required(env, 'MESSENGER_PAGE_ID', "give your page's id on the messaging platform");
  if (!PAGE_ID.test(pageId)) throw new Problem(`MESSENGER_PAGE_ID must be 5 to 32 digits (got ${JSON.stringify(pageId)}).`);
  return { ...platformSettings(env), pageId, host: env.HOST || '127.0.0.1', port: portOf(env.PORT || '3000') };
}
