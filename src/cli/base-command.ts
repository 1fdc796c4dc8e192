import { Command, Option, UsageError, type BaseContext } from 'clipanion';
import { ApiRequestError, ConnectionError } from '../client/errors.js';
import { createClient } from '../client/client.js';
import { VERSION } from '../version.js';
import { ConfigError, resolveConnection } from './connection.js';
import { ExitCode } from './exit-codes.js';
import { writeJson } from './output.js';

export interface SvcContext extends BaseContext {
  env: NodeJS.ProcessEnv;
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
      throw new UsageError('Not logged in: run `svc auth login` or set SVC_API_KEY.');
    }
    return createClient({ baseUrl: connection.apiUrl, apiKey: connection.apiKey, userAgent: `svc-cli/${VERSION}` });
  }

  /** Prints an error the way scripts expect (JSON on stderr) and returns the exit code. */
  protected report(error: unknown): number {
    const { stderr, env } = this.context;
    if (error instanceof ApiRequestError) {
      writeJson(stderr, error.body, env);
      return ExitCode.apiError;
    }
    if (error instanceof ConnectionError) {
      writeJson(
        stderr,
        {
          error: {
            message: `${error.message}. Start a server with \`svc serve\`, or point to one with --api-url.`,
            type: 'connection_error',
            code: error.code,
            param: null,
          },
        },
        env,
      );
      return ExitCode.unreachable;
    }
    if (error instanceof ConfigError) {
      stderr.write(`svc: ${error.message}\n`);
      return ExitCode.usage;
    }
    throw error;
  }
}
