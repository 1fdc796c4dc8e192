import { Command } from 'clipanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';

/** Placeholder until the command is built (issue 7). */
export class NewCommand extends SvcCommand {
  static override paths = [['new']];
  static override usage = Command.Usage({ category: 'Starters', description: 'Not built yet' });

  async execute(): Promise<number> {
    this.context.stderr.write('svc new: not built yet\n');
    return ExitCode.usage;
  }
}
