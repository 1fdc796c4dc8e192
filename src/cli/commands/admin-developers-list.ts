import { Command } from 'clipanion';
import { ExitCode } from '../exit-codes.js';
import { OperatorCommand } from '../operator-command.js';
import { writeJson } from '../output.js';

export class AdminDevelopersListCommand extends OperatorCommand {
  static override paths = [['admin', 'developers', 'list']];
  static override usage = Command.Usage({
    category: 'Operator',
    description: 'List the developer accounts of the server',
    details:
      'Shows each developer’s id, name, number of apps and default app (their oldest): what `svc admin keys create --developer ID` needs. ' +
      'The first account, `owner`, is the one `svc serve` created. Works on the server database directly (the same --db as svc serve). ' +
      'Prints JSON when the output is not a terminal.',
    examples: [['List developers', 'svc admin developers list']],
  });

  async execute(): Promise<number> {
    const db = this.existingDatabase();
    if (!db) return ExitCode.usage;
    let developers;
    try {
      developers = await (await this.server()).listDevelopers(db);
    } catch (error) {
      return this.failed(error);
    }
    const { stdout, env } = this.context;
    const rows = developers.map((d) => ({
      developer_id: d.id,
      name: d.name,
      apps: d.apps,
      default_app_uuid: d.defaultAppUuid,
      created_at: d.createdAt,
    }));
    if (!this.isTerminal) {
      writeJson(stdout, { data: rows, total: rows.length }, env);
      return ExitCode.ok;
    }
    const width = Math.max(4, ...rows.map((row) => row.name.length));
    stdout.write(`${'ID'.padEnd(36)}  ${'NAME'.padEnd(width)}  APPS  ${'DEFAULT APP'.padEnd(36)}  CREATED\n`);
    for (const row of rows) {
      const app = (row.default_app_uuid ?? '-').padEnd(36);
      stdout.write(`${row.developer_id.padEnd(36)}  ${row.name.padEnd(width)}  ${String(row.apps).padStart(4)}  ${app}  ${row.created_at}\n`);
    }
    return ExitCode.ok;
  }
}
