import { Command } from 'clipanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';

export class AuthLogoutCommand extends SvcCommand {
  // It talks to no server: no --api-url in its options.
  override apiUrl = undefined;
  static override paths = [['auth', 'logout']];
  static override usage = Command.Usage({ category: 'Account', description: 'Remove the saved API key' });

  async execute(): Promise<number> {
    let config;
    try {
      config = await this.config();
    } catch (error) {
      return this.report(error);
    }
    const had = config.values.api_key !== undefined;
    config.delete('api_key');
    this.context.stdout.write(had ? `Logged out (removed the key from ${config.path}).\n` : 'No key was saved.\n');
    return ExitCode.ok;
  }
}
