import { loadEnvFile } from 'node:process';
import { Problem } from './problem.js';

/** How the program reaches the platform. */
export interface PlatformSettings {
  apiUrl: string;
  apiKey: string;
  model: string;
}

const DEFAULT_API_URL = '__SVC_API_URL__';
/** Offline and free on every svc server; switch to e.g. openai/gpt-4o-mini once a provider is set up. */
const DEFAULT_MODEL = 'local/echo';

/** Reads `.env` when there is one. Variables already in the environment keep their values. */
export function loadDotEnv(): void {
  try {
    loadEnvFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A setting the program cannot run without; `hint` says where to get it. */
export function required(env: NodeJS.ProcessEnv, name: string, hint: string): string {
  const value = env[name];
  if (!value) throw new Problem(`${name} is not set: ${hint}. Copy .env.example to .env and fill it in.`);
  return value;
}

export function platformSettings(env: NodeJS.ProcessEnv): PlatformSettings {
  return {
    apiKey: required(env, 'SVC_API_KEY', 'give an API key of your app (`svc serve` prints one on its first start)'),
    apiUrl: env.SVC_API_URL || DEFAULT_API_URL,
    model: env.SVC_MODEL || DEFAULT_MODEL,
  };
}
