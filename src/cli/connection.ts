import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { clientEnvironment } from '../client/environment.js';

/**
 * Where the CLI finds the API: the part of the config that every `svc api …` call reads. It
 * checks just the two fields it uses, so the hot path loads no full schema library; the whole file
 * is validated (zod) by `config.ts` whenever it is written or a command needs more of it.
 */

export const DEFAULT_API_URL = 'http://127.0.0.1:8787';

export class ConfigError extends Error {}

/** `SVC_HOME` moves the whole `~/.svc` (tests always set it). */
export function svcHome(env: NodeJS.ProcessEnv): string {
  return clientEnvironment(env).SVC_HOME ?? join(homedir(), '.svc');
}

export const configPath = (env: NodeJS.ProcessEnv) => join(svcHome(env), 'config.json');

/** The config file as JSON, `{}` when there is none. */
export function readConfigJson(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`${path} cannot be read (${(error as Error).message}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`${path} is not valid JSON; fix or delete it.`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`${path} must hold a JSON object; fix or delete it.`);
  }
  return json as Record<string, unknown>;
}

function optionalText(json: Record<string, unknown>, key: string, path: string): string | undefined {
  const value = json[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigError(`${path} is invalid: ${key} must be a non-empty string; fix or delete it.`);
  }
  return value;
}

export interface Connection {
  apiUrl: string;
  apiKey: string | undefined;
  /** Where the key came from, for `svc auth status`. */
  keySource: 'env' | 'config' | null;
}

/** The API URL must be http(s); `source` says where it came from, for the error. */
function checkedUrl(url: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${source} is not a URL: ${JSON.stringify(url)} (expected e.g. ${DEFAULT_API_URL}).`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${source} must be an http:// or https:// URL (got ${JSON.stringify(url)}).`);
  }
  return url;
}

/** `--api-url` beats `SVC_API_URL`, which beats the file; `SVC_API_KEY` beats the file. */
export function resolveConnection(env: NodeJS.ProcessEnv, apiUrlFlag: string | undefined): Connection {
  const path = configPath(env);
  const json = readConfigJson(path);
  const fileKey = optionalText(json, 'api_key', path);
  const fileUrl = optionalText(json, 'api_url', path);
  const { SVC_API_KEY: envKey, SVC_API_URL: envUrl } = clientEnvironment(env);
  const apiKey = envKey ?? fileKey;
  const apiUrl =
    apiUrlFlag !== undefined
      ? checkedUrl(apiUrlFlag, '--api-url')
      : envUrl
        ? checkedUrl(envUrl, 'SVC_API_URL')
        : fileUrl
          ? checkedUrl(fileUrl, `api_url in ${path}`)
          : DEFAULT_API_URL;
  return { apiUrl, apiKey, keySource: envKey ? 'env' : fileKey ? 'config' : null };
}

/** `svc_live_AbCd…wxyz`: enough to recognise a key, never enough to use it. */
export function maskKey(key: string): string {
  return key.length <= 17 ? `${key.slice(0, 9)}…` : `${key.slice(0, 13)}…${key.slice(-4)}`;
}
