import { Command, Option } from 'clipanion';
import { KEY_ROLES } from '../../contract/operation.js';
import { ExitCode } from '../exit-codes.js';
import { OperatorCommand } from '../operator-command.js';
import { writeJson } from '../output.js';

export class AdminKeysCreateCommand extends OperatorCommand {
  static override paths = [['admin', 'keys', 'create']];
  static override usage = Command.Usage({
    category: 'Operator',
    description: 'Issue a new API key for a developer’s app (shown once): the way back in after losing every key',
    details:
      'Works on the server database directly (the same --db as svc serve): whoever can open it is the operator, so no key is needed to get one. ' +
      'The key goes to the developer’s default app (their oldest) unless --app names another of theirs; a developer with no app left gets a new default app. ' +
      '`svc admin developers list` shows the ids (the first account, `owner`, is the one `svc serve` created). A test key is never admin. ' +
      'Prints JSON when the output is not a terminal.',
    examples: [
      ['A new admin key for the owner', 'svc admin keys create --developer dev_… --role admin'],
      ['An inference key for one app, on PostgreSQL', 'svc admin keys create --developer dev_… --role inference --app 1b6c0c4e-… --db postgres://svc@db.internal:5432/svc'],
    ],
  });

  developer = Option.String('--developer', { required: true, description: 'The developer account (dev_…; see svc admin developers list)' });
  role = Option.String('--role', { required: true, description: 'inference, read_only or admin (everything the developer does to their apps)' });
  app = Option.String('--app', { description: 'One of the developer’s apps (its app_uuid); default: their default app' });
  name = Option.String('--name', { description: 'The key’s name (at most 100 characters; default "issued by the operator")' });
  test = Option.Boolean('--test', false, { description: 'A test key (svc_test_…): sandbox only, never admin' });

  async execute(): Promise<number> {
    const role = KEY_ROLES.find((known) => known === this.role);
    if (!role) {
      this.context.stderr.write(`svc: --role must be ${KEY_ROLES.join(', ')} (got ${JSON.stringify(this.role)}).\n`);
      return ExitCode.usage;
    }
    const db = this.existingDatabase();
    if (!db) return ExitCode.usage;
    let issued;
    try {
      issued = await (await this.server()).issueKey(db, {
        developerId: this.developer,
        appUuid: this.app?.toLowerCase(),
        role,
        name: this.name,
        test: this.test,
      });
    } catch (error) {
      return this.failed(error);
    }
    const { stdout, env } = this.context;
    if (!this.isTerminal) {
      writeJson(
        stdout,
        {
          key_id: issued.keyId,
          name: issued.name,
          role: issued.role,
          is_test: issued.isTest,
          developer_id: issued.developerId,
          app_uuid: issued.appUuid,
          created_app: issued.createdApp,
          secret: issued.secret,
        },
        env,
      );
      return ExitCode.ok;
    }
    stdout.write(
      [
        ...(issued.createdApp ? [`Developer ${issued.developerId} had no app left: created a default app ${issued.appUuid}.`] : []),
        `Issued ${issued.isTest ? 'a test' : 'a live'} ${issued.role} key ${issued.keyId} for app ${issued.appUuid} of ${issued.developerId}.`,
        `  key: ${issued.secret}`,
        'This key is shown only once. Log in with it (`svc auth login` asks for it without showing it), or give it to the developer.',
        '',
      ].join('\n'),
    );
    return ExitCode.ok;
  }
}
