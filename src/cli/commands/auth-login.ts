import { Command, Option, UsageError } from 'clipanion';
import { createClient } from '../../client/client.js';
import { ApiRequestError } from '../../client/errors.js';
import { clientOperations } from '../../client/operation-refs.js';
import { SvcCommand } from '../base-command.js';
import { maskKey } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { isTty } from '../output.js';
import { readAll } from '../read-all.js';

export class AuthLoginCommand extends SvcCommand {
  static override paths = [['auth', 'login']];
  static override usage = Command.Usage({
    category: 'Account',
    description: 'Save an API key in ~/.svc/config.json (checked against the server first)',
    details:
      'The key is read from standard input with --with-token, or asked for on a terminal without being shown, so it stays out of ' +
      'the shell history and of `ps`. --api-key KEY also works, for scripts that have no other way. ' +
      'Lost every key? Where the server’s database is, `svc admin keys create --developer ID --role admin` issues a new one.',
    examples: [
      ['Log in with a key from a file', 'svc auth login --with-token < key.txt'],
      ['Be asked for the key (not echoed)', 'svc auth login'],
    ],
  });

  withToken = Option.Boolean('--with-token', false, { description: 'Read the key from standard input' });
  apiKey = Option.String('--api-key', { description: 'The API key itself (svc_live_… or svc_test_…); it lands in the shell history: prefer --with-token' });

  async execute(): Promise<number> {
    let config, apiUrl;
    try {
      config = await this.config();
      apiUrl = this.connection().apiUrl;
    } catch (error) {
      return this.report(error);
    }
    const apiKey = await this.readKey();
    if (apiKey === null) return ExitCode.usage;
    try {
      // Any authenticated read proves the key; listing one app is the cheapest.
      await createClient({ baseUrl: apiUrl, apiKey }).call(clientOperations.apps, { query: { limit: 1 } });
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 401) {
        this.context.stderr.write(`svc: the server at ${apiUrl} refused this key: ${error.message}\n`);
        return ExitCode.apiError;
      }
      return this.report(error);
    }
    config.set({ api_key: apiKey, ...(this.apiUrl ? { api_url: this.apiUrl } : {}) });
    this.context.stdout.write(`Logged in to ${apiUrl} with ${maskKey(apiKey)} (saved in ${config.path}).\n`);
    return ExitCode.ok;
  }

  /** The key from --api-key, standard input or a hidden prompt; null (said on stderr) when there is none. */
  private async readKey(): Promise<string | null> {
    const { stdin, stderr } = this.context;
    if (this.apiKey !== undefined && this.withToken) throw new UsageError('Give the key one way: --with-token (standard input) or --api-key.');
    if (this.apiKey !== undefined) return this.apiKey.trim();
    if (this.withToken) {
      const key = (await readAll(stdin)).trim();
      if (key) return key;
      stderr.write('svc: no key on standard input: `svc auth login --with-token < key.txt`.\n');
      return null;
    }
    if (!isTty(stdin)) {
      stderr.write('svc: no key given: `svc auth login --with-token < key.txt` reads it from standard input; on a terminal, `svc auth login` asks for it.\n');
      return null;
    }
    const { promptHidden, PromptCanceled } = await import('../hidden-prompt.js');
    try {
      const key = (await promptHidden(stdin, stderr, 'API key (not shown): ')).trim();
      if (key) return key;
      stderr.write('svc: no key entered.\n');
    } catch (error) {
      if (!(error instanceof PromptCanceled)) throw error;
      stderr.write('svc: canceled.\n');
    }
    return null;
  }
}
