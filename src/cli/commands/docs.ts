import { Command } from 'clipanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';

/** Placeholder until the command is built (issue 7). */
export class DocsCommand extends SvcCommand {
  static override paths = [['docs']];
  static override usage = Command.Usage({ category: 'Docs', description: 'Not built yet' });

  async execute(): Promise<number> {
    this.context.stderr.write('svc docs: not built yet\n');
    return ExitCode.usage;
  }
}
