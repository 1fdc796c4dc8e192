import { Command } from 'clipanion';
import { SvcCommand } from '../base-command.js';
import { maskKey } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { writeJson } from '../output.js';

export class AuthStatusCommand extends SvcCommand {
  static override paths = [['auth', 'status']];
  static override usage = Command.Usage({
    category: 'Account',
    description: 'Show whether an API key is saved (exit 1 when logged out)',
    details: 'Prints JSON when the output is not a terminal. Never prints the whole key.',
  });

  async execute(): Promise<number> {
    let connection;
    try {
      connection = this.connection();
    } catch (error) {
      return this.report(error);
    }
    const { stdout, env } = this.context;
    const status = {
      logged_in: Boolean(connection.apiKey),
      api_url: connection.apiUrl,
      key: connection.apiKey ? maskKey(connection.apiKey) : null,
      key_source: connection.keySource,
    };
    if ((stdout as { isTTY?: boolean }).isTTY) {
      stdout.write(
        status.logged_in
          ? `Logged in to ${status.api_url} with ${status.key} (from ${status.key_source === 'env' ? 'SVC_API_KEY' : 'the config file'}).\n`
          : `Not logged in. Run \`svc auth login\`.\n`,
      );
    } else {
      writeJson(stdout, status, env);
    }
    return status.logged_in ? ExitCode.ok : ExitCode.apiError;
  }
}
