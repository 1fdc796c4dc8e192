import { Command, Option } from 'clipanion';
import { ExitCode } from '../exit-codes.js';
import { OperatorCommand } from '../operator-command.js';
import { writeJson } from '../output.js';

export class AdminDevelopersCreateCommand extends OperatorCommand {
  static override paths = [['admin', 'developers', 'create']];
  static override usage = Command.Usage({
    category: 'Operator',
    description: 'Create a developer account with a default app and its first admin key (shown once)',
    details:
      'Works on the server database directly (the same --db as svc serve); no API call can create a developer. ' +
      'The new developer sees only their own apps, keys, users, usage and billing. Their default app starts ' +
      'with no credits. Prints JSON when the output is not a terminal.',
    examples: [['Add a developer', 'svc admin developers create --name "Acme"']],
  });

  name = Option.String('--name', { required: true, description: 'The developer’s name (1 to 100 characters)' });

  async execute(): Promise<number> {
    const name = this.name.trim();
    if (name.length === 0 || name.length > 100) {
      this.context.stderr.write('svc: --name must be 1 to 100 characters.\n');
      return ExitCode.usage;
    }
    const db = this.existingDatabase();
    if (!db) return ExitCode.usage;
    let created;
    try {
      created = await (await this.server()).createDeveloper(db, name);
    } catch (error) {
      return this.failed(error);
    }
    const { stdout, env } = this.context;
    if (!this.isTerminal) {
      writeJson(
        stdout,
        { developer_id: created.developerId, name: created.name, app_uuid: created.appUuid, admin_key: created.adminKey, created_at: created.createdAt },
        env,
      );
      return ExitCode.ok;
    }
    stdout.write(
      [
        `Created developer ${created.developerId} (${created.name}) with a default app ${created.appUuid}.`,
        `  admin key: ${created.adminKey}`,
        'This key is shown only once: give it to the developer, who logs in with `svc auth login` (it asks for the key without showing it).',
        '',
      ].join('\n'),
    );
    return ExitCode.ok;
  }
}
