import { Command, Option, type BaseContext } from 'clipanion';
import { ApiRequestError, ConnectionError } from '../client/errors.js';
import { createClient } from '../client/client.js';
import { VERSION } from '../version.js';
import { ConfigError, resolveConnection } from './connection.js';
import { ExitCode } from './exit-codes.js';
import { isTty, writeJson } from './output.js';

/** No key to call with: a short hint, never a usage line (run.ts prints just the message). */
export class NotLoggedInError extends Error {
  constructor() {
    super('Not logged in: run `svc auth login --with-token` (or `svc auth login` to paste a key), or set SVC_API_KEY.');
  }
}

/** Everything a command may read of its process, injected (main.ts passes the real ones; tests their own). */
export interface SvcContext extends BaseContext {
  env: NodeJS.ProcessEnv;
  /** The directory relative paths on the command line are relative to. */
  cwd: string;
}

/** What every command shares: `--api-url`, the config, a client, and error reporting. */
export abstract class SvcCommand extends Command<SvcContext> {
  apiUrl = Option.String('--api-url', { description: 'Base URL of the API (overrides SVC_API_URL and the config file)' });

  /** The whole config file, validated; loaded on demand (the `svc api` path never needs it). */
  protected async config() {
    const { openConfig } = await import('./config.js');
    return openConfig(this.context.env);
  }

  protected connection() {
    return resolveConnection(this.context.env, this.apiUrl);
  }

  protected client(options: { requireKey?: boolean } = {}) {
    const connection = this.connection();
    if (options.requireKey !== false && !connection.apiKey) {
      throw new NotLoggedInError();
    }
    return createClient({ baseUrl: connection.apiUrl, apiKey: connection.apiKey, userAgent: `svc-cli/${VERSION}` });
  }

  /**
   * Prints an error for whoever reads stderr: one line for a person at a terminal, the JSON error
   * body for a script. Returns the exit code.
   */
  protected report(error: unknown): number {
    const { stderr, env } = this.context;
    if (error instanceof ApiRequestError) {
      if (isTty(stderr)) stderr.write(`svc: ${humanApiError(error)}\n`);
      else writeJson(stderr, error.body, env);
      return ExitCode.apiError;
    }
    if (error instanceof ConnectionError) {
      const message = `${error.message}. Start a server with \`svc serve\`, or point to one with --api-url.`;
      if (isTty(stderr)) stderr.write(`svc: ${message}\n`);
      else writeJson(stderr, { error: { message, type: 'connection_error', code: error.code, param: null } }, env);
      return ExitCode.unreachable;
    }
    if (error instanceof ConfigError) {
      stderr.write(`svc: ${error.message}\n`);
      return ExitCode.usage;
    }
    throw error;
  }
}

/** `Unknown app 123 (HTTP 404 not_found, request req_abc)`: the message, then what identifies the failure. */
export function humanApiError(error: ApiRequestError): string {
  const { message, code, type, param } = error.body.error;
  const what = [`HTTP ${error.status}`, code ?? type, param ? `param ${param}` : null].filter(Boolean).join(' ');
  const request = error.requestId ? `, request ${error.requestId}` : '';
  return `${message.replace(/\s*\n\s*/g, ' ')} (${what}${request})`;
}
