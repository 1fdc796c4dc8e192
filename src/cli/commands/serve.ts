import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startBundledServer } from '../bundled-server.js';
import { loadServer } from '../lazy.js';

export class ServeCommand extends SvcCommand {
  static override paths = [['serve']];
  static override usage = Command.Usage({
    category: 'Server',
    description: 'Run the platform server (SQLite in ~/.svc/server.db by default)',
    details:
      'Prints `svc server listening on http://HOST:PORT` when ready. On an empty database it creates the owner account, a default app with a starting grant and one live and one test key, prints the keys once, and saves the live key in the CLI config when none is saved yet. Stops gracefully on SIGINT or SIGTERM.\n\n' +
      'Payments go through the built-in sandbox processor (its checkout and portal pages are served here) unless STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set; then through Stripe, with plan prices from STRIPE_PRICE_<TIER>_<INTERVAL>. SVC_PAYMENT_WEBHOOK_SECRET fixes the sandbox webhook secret; SVC_DB_SYNCHRONOUS=full makes every commit survive a power loss (the default survives the process being killed). Provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, …), SVC_PROVIDERS, SVC_AGENTS and SVC_POINTS_URL are read from the environment too.',
    examples: [
      ['Run on the defaults', 'svc serve'],
      ['Any free port, a throwaway database', 'svc serve --port 0 --db /tmp/svc.db'],
    ],
  });

  host = Option.String('--host', '127.0.0.1', { description: 'Interface to listen on' });
  port = Option.String('--port', '8787', {
    description: 'Port (0 picks a free one)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(0, 65_535)]),
  });
  db = Option.String('--db', { description: 'SQLite database file (default ~/.svc/server.db)' });
  providers = Option.String('--providers', {
    description: 'Providers file (JSON: upstream providers, base URLs, key variables, prices); default SVC_PROVIDERS',
  });
  check = Option.Boolean('--check', false, {
    description: 'Check the ledger instead of serving: every balance must equal the sum of its entries (exit 1 when not)',
  });
  startingCredits = Option.String('--starting-credits', '100', {
    description: 'Credits granted to the default app of a new database',
    validator: t.cascade(t.isNumber(), [t.isAtLeast(0)]),
  });

  async execute(): Promise<number> {
    const { stdout, stderr } = this.context;
    let config;
    try {
      config = await this.config();
    } catch (error) {
      return this.report(error);
    }
    // Listen for the stop signals before anything else: a supervisor that reacts to the listening
    // line may signal at once, and without a listener Node would die instead of shutting down.
    const stopRequested = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    if (this.check) return this.checkLedger(config.home);
    let started;
    try {
      started = await startBundledServer(config, {
        host: this.host,
        port: this.port,
        ...(this.db ? { db: this.db } : {}),
        startingCredits: this.startingCredits,
        ...(this.providers ? { providersFile: this.providers } : {}),
      });
    } catch (error) {
      stderr.write(`svc: cannot start the server: ${(error as Error).message}\n`);
      return ExitCode.usage;
    }
    const { server, savedKey } = started;
    if (server.bootstrap) {
      const { liveKey, testKey, appUuid } = server.bootstrap;
      stdout.write(
        [
          `Created the owner account and a default app ${appUuid} with ${this.startingCredits} credits.`,
          `  live key: ${liveKey}`,
          `  test key: ${testKey}`,
          'The live key is admin (it manages your apps); the test key is an inference key for the sandbox.',
          'These keys are shown only once: keep them somewhere safe.',
          '',
        ].join('\n'),
      );
      if (savedKey) stdout.write(`Saved the live key and ${server.url} in ${config.path}: \`svc api …\` works now.\n`);
    }
    stdout.write(`svc server listening on ${server.url}\n`);

    await stopRequested;
    stderr.write('svc: shutting down (finishing requests in flight)…\n');
    await server.close();
    return ExitCode.ok;
  }

  private async checkLedger(home: string): Promise<number> {
    const { stdout, stderr } = this.context;
    const { checkLedger } = await loadServer();
    const dbPath = this.db ?? join(home, 'server.db');
    if (!existsSync(dbPath)) {
      stderr.write(`svc: no database at ${dbPath}\n`);
      return ExitCode.usage;
    }
    const problems = await checkLedger(dbPath);
    if (problems.length === 0) {
      stdout.write(`The ledger of ${dbPath} is consistent: every balance equals the sum of its entries.\n`);
      return ExitCode.ok;
    }
    for (const p of problems) {
      stdout.write(`account ${p.accountId}: balance ${p.balanceMicro} µcredits, ledger ${p.ledgerMicro} µcredits (off by ${p.balanceMicro - p.ledgerMicro})\n`);
    }
    return ExitCode.apiError;
  }
}
