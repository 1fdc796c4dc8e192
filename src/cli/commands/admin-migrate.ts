import { Command } from 'clipanion';
import { ExitCode } from '../exit-codes.js';
import { OperatorCommand } from '../operator-command.js';
import { writeJson } from '../output.js';

export class AdminMigrateCommand extends OperatorCommand {
  static override paths = [['admin', 'migrate']];
  static override usage = Command.Usage({
    category: 'Operator',
    description: 'Bring the server database to this version of svc’s schema',
    details:
      'Applies the migrations the database has not had yet, in order, in one transaction, and says which version it is at. `svc serve` does the same at start, so this is for upgrading ahead of a deploy: instances starting together apply each migration once. A database newer than this svc is refused: upgrade svc instead. Prints JSON when the output is not a terminal.',
    examples: [
      ['The default SQLite database', 'svc admin migrate'],
      ['A PostgreSQL database', 'svc admin migrate --db postgres://svc@db.internal:5432/svc'],
    ],
  });

  async execute(): Promise<number> {
    const db = this.existingDatabase();
    if (!db) return ExitCode.usage;
    let result;
    try {
      result = await (await this.server()).migrateDatabase(db);
    } catch (error) {
      return this.failed(error);
    }
    if (this.isTerminal) this.context.stdout.write(`The database is at schema version ${result.schemaVersion}: up to date.\n`);
    else writeJson(this.context.stdout, { schema_version: result.schemaVersion }, this.context.env);
    return ExitCode.ok;
  }
}
