import { Command } from 'clipanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';

/** Placeholder until the command is built (issue 7). */
export class DashboardCommand extends SvcCommand {
  static override paths = [['dashboard']];
  static override usage = Command.Usage({ category: 'Dashboard', description: 'Not built yet' });

  async execute(): Promise<number> {
    this.context.stderr.write('svc dashboard: not built yet\n');
    return ExitCode.usage;
  }
}
