import { Command, Option } from 'clipanion';
import { createClient } from '../../client/client.js';
import { ApiRequestError } from '../../client/errors.js';
import { SvcCommand } from '../base-command.js';
import { maskKey } from '../connection.js';
import { ExitCode } from '../exit-codes.js';

export class AuthLoginCommand extends SvcCommand {
  static override paths = [['auth', 'login']];
  static override usage = Command.Usage({
    category: 'Account',
    description: 'Save an API key in ~/.svc/config.json (checked against the server first)',
    examples: [['Log in with a key', 'svc auth login --api-key svc_live_…']],
  });

  apiKey = Option.String('--api-key', { required: true, description: 'The API key (svc_live_… or svc_test_…)' });

  async execute(): Promise<number> {
    let config, apiUrl;
    try {
      config = await this.config();
      apiUrl = this.connection().apiUrl;
    } catch (error) {
      return this.report(error);
    }
    try {
      // Any authenticated read proves the key; listing one app is the cheapest.
      const probe = { method: 'GET', path: '/developer/apps' } as const;
      await createClient({ baseUrl: apiUrl, apiKey: this.apiKey }).call(probe, { query: { limit: 1 } });
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 401) {
        this.context.stderr.write(`svc: the server at ${apiUrl} refused this key: ${error.message}\n`);
        return ExitCode.apiError;
      }
      return this.report(error);
    }
    config.set({ api_key: this.apiKey, ...(this.apiUrl ? { api_url: this.apiUrl } : {}) });
    this.context.stdout.write(`Logged in to ${apiUrl} with ${maskKey(this.apiKey)} (saved in ${config.path}).\n`);
    return ExitCode.ok;
  }
}
