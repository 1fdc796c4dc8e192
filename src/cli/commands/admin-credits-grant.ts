import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { ExitCode } from '../exit-codes.js';
import { OperatorCommand } from '../operator-command.js';
import { writeJson } from '../output.js';

/** As an API credit amount: above nothing, at most a billion credits a grant. */
const MAX_GRANT_CREDITS = 1_000_000_000;

export class AdminCreditsGrantCommand extends OperatorCommand {
  static override paths = [['admin', 'credits', 'grant']];
  static override usage = Command.Usage({
    category: 'Operator',
    description: 'Grant credits from the operator: to an app’s live balance, or to the promotions account',
    details:
      'Every live credit comes from a payment, a paid subscription period or an operator grant; this is the grant. ' +
      '--promotions funds the account that pays developers’ daily claims and task rewards (empty on a new server). ' +
      'Works on the server database directly (the same --db as svc serve). Prints JSON when the output is not a terminal.',
    examples: [
      ['Give an app 500 credits', 'svc admin credits grant --app 1b6c0c4e-… --credits 500 --reason "pilot"'],
      ['Fund developers’ claims', 'svc admin credits grant --promotions --credits 10000'],
    ],
  });

  app = Option.String('--app', { description: 'The app (its app_uuid) whose live balance receives the credits' });
  promotions = Option.Boolean('--promotions', false, { description: 'Grant to the promotions account instead of an app' });
  credits = Option.String('--credits', {
    required: true,
    description: `Credits to grant (more than 0, at most ${MAX_GRANT_CREDITS}; 1 credit = $0.01)`,
    validator: t.cascade(t.isNumber(), [t.isAtLeast(0.000001), t.isAtMost(MAX_GRANT_CREDITS)]),
  });
  reason = Option.String('--reason', { description: 'Why, kept with the ledger entry (at most 200 characters)' });

  async execute(): Promise<number> {
    const { stdout, stderr, env } = this.context;
    if (Boolean(this.app) === this.promotions) {
      stderr.write('svc: give either --app <app-uuid> or --promotions.\n');
      return ExitCode.usage;
    }
    if (this.reason !== undefined && this.reason.length > 200) {
      stderr.write('svc: --reason must be at most 200 characters.\n');
      return ExitCode.usage;
    }
    const db = this.existingDatabase();
    if (!db) return ExitCode.usage;
    const target = this.app ? { appUuid: this.app.toLowerCase() } : { promotions: true as const };
    let result;
    try {
      result = await (await this.server()).grantCredits(db, { target, credits: this.credits, reason: this.reason });
    } catch (error) {
      return this.failed(error);
    }
    const to = this.app ? `app ${this.app}` : 'the promotions account';
    if (!this.isTerminal) {
      writeJson(stdout, { granted_credits: this.credits, to: 'appUuid' in target ? { app_uuid: target.appUuid } : 'promotions', balance_credits: result.balanceCredits }, env);
    } else {
      stdout.write(`Granted ${this.credits} credits to ${to}; its balance is ${result.balanceCredits} credits.\n`);
    }
    return ExitCode.ok;
  }
}
