import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';
import { existsSync } from 'node:fs';
import { ownerKeyNotice, startBundledServer } from '../bundled-server.js';
import { BACKGROUND_ENV, readPidFile, removePidFile, serverLogPath, writePidFile, type ReadyMessage } from '../background-server.js';
import { loadServer } from '../lazy.js';
import { stopSignals } from '../stop-signals.js';
import { describeListenError } from '../port-holder.js';
import { databaseLocation, locationText, shownLocation, type DatabaseLocation } from '../database-option.js';

/** How often the background server checks that its pid file still names it. */
const PID_FILE_CHECK_MS = 2_000;

export class ServeCommand extends SvcCommand {
  // It talks to no server: no --api-url in its options.
  override apiUrl = undefined;
  static override paths = [['serve']];
  static override usage = Command.Usage({
    category: 'Server',
    description: 'Run the platform server (SQLite in ~/.svc/server.db by default, or PostgreSQL by URL)',
    details:
      'Prints `svc server listening on http://HOST:PORT` when ready. On an empty database it creates the owner account, a default app with a starting grant and one live and one test key, prints the keys once, and saves the live key in the CLI config when none is saved yet. Stops gracefully on SIGINT or SIGTERM.\n\n' +
      'Live payments go through Stripe when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set (plan prices from STRIPE_PRICE_<TIER>_<INTERVAL>); otherwise they are off, and credits come from `svc admin credits grant`. --payments sandbox (or SVC_PAYMENTS=sandbox) takes live payments through the built-in sandbox processor, for development. Test keys and sandbox users always pay play money through the sandbox, whose checkout and portal pages are served here. SVC_PAYMENT_WEBHOOK_SECRET fixes the sandbox webhook secret; SVC_DB_SYNCHRONOUS=full makes every commit survive a power loss (the default survives the process being killed).\n\n' +
      'With --db postgres://user@host:5432/db (or SVC_DATABASE_URL), any number of instances serve one database as one server: holds, rate limits, revocation and the billing clock are shared. Migrations are applied at start, once however many instances start together; SVC_PG_POOL sets the connections per instance (default 10). Provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, …), SVC_PROVIDERS, SVC_AGENTS and SVC_POINTS_URL are read from the environment too.',
    examples: [
      ['Run on the defaults', 'svc serve'],
      ['Any free port, a throwaway database', 'svc serve --port 0 --db /tmp/svc.db'],
      ['One of several instances over PostgreSQL', 'svc serve --host 0.0.0.0 --db postgres://svc@db.internal:5432/svc'],
    ],
  });

  host = Option.String('--host', '127.0.0.1', { description: 'Interface to listen on' });
  port = Option.String('--port', '8787', {
    description: 'Port (0 picks a free one)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(0, 65_535)]),
  });
  db = Option.String('--db', {
    description: 'SQLite database file, or a PostgreSQL URL (postgres://…) for several instances; default SVC_DATABASE_URL, else ~/.svc/server.db',
  });
  providers = Option.String('--providers', {
    description: 'Providers file (JSON: upstream providers, base URLs, key variables, prices); default SVC_PROVIDERS',
  });
  payments = Option.String('--payments', {
    description: 'How live money comes in: stripe, sandbox (development: no real money) or off; default SVC_PAYMENTS, else stripe with its keys, else off',
    validator: t.isEnum(['stripe', 'sandbox', 'off'] as const),
  });
  check = Option.Boolean('--check', false, {
    description:
      'Check the ledger instead of serving: every balance equals its entries, and live balances equal payments + paid periods + operator grants − inference (exit 1 when not)',
  });
  startingCredits = Option.String('--starting-credits', '100', {
    description: 'Credits granted to the default app of a new database',
    validator: t.cascade(t.isNumber(), [t.isAtLeast(0)]),
  });

  async execute(): Promise<number> {
    let config;
    try {
      config = await this.config();
    } catch (error) {
      return this.report(error);
    }
    // Listen for the stop signals before anything else: a supervisor that reacts to the listening
    // line may signal at once, and without a listener Node would die instead of shutting down.
    const stop = stopSignals();
    try {
      return await this.serve(config, stop.requested);
    } finally {
      // Run in-process (the tests), the command must not leave its listeners on the process.
      stop.dispose();
    }
  }

  private async serve(config: Awaited<ReturnType<SvcCommand['config']>>, stopRequested: Promise<void>): Promise<number> {
    const { stdout, stderr } = this.context;
    const location = databaseLocation(this.db, this.context.env, config.home);
    if ('refusal' in location) {
      stderr.write(location.refusal);
      return ExitCode.usage;
    }
    if (this.check) return this.checkLedger(location);
    // Started by `svc chat` as the machine's background server (background-server.ts): it logs to
    // ~/.svc/server.log, keeps its pid in ~/.svc/server.pid, and reports readiness over IPC.
    const background = this.context.env[BACKGROUND_ENV] === '1' && typeof process.send === 'function';
    let started;
    try {
      started = await startBundledServer(config, {
        host: this.host,
        port: this.port,
        db: locationText(location),
        startingCredits: this.startingCredits,
        ...(this.providers ? { providersFile: this.providers } : {}),
        ...(this.payments ? { payments: this.payments } : {}),
        ...(background ? { logFile: serverLogPath(config.home) } : {}),
        env: this.context.env,
        stderr,
      });
    } catch (error) {
      stderr.write(`svc: cannot start the server: ${describeListenError(error, this.port, readPidFile(config.home)?.pid ?? null)}\n`);
      return ExitCode.usage;
    }
    const { server, savedKey, savedUrl } = started;
    if (background) return this.serveInBackground(config.home, started, stopRequested);
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
      if (savedUrl) stdout.write(`Saved the live key and ${server.url} in ${config.path}: \`svc api …\` works now.\n`);
      else if (savedKey) stdout.write(`Saved the live key in ${config.path} (not this start's port: give --api-url ${server.url}).\n`);
      const db = this.db === undefined ? undefined : shownLocation(location);
      stdout.write(`${ownerKeyNotice({ developerId: server.bootstrap.developerId, saved: savedKey, configPath: config.path, db })}\n`);
    }
    const mode = server.services.processors.mode;
    if (mode === 'sandbox') stdout.write('Live payments go through the sandbox processor: development only, no real money moves.\n');
    if (mode === 'off') stdout.write('Live payments are off (no Stripe keys): grant credits with `svc admin credits grant`.\n');
    stdout.write(`svc server listening on ${server.url}\n`);

    await stopRequested;
    stderr.write('svc: shutting down (finishing requests in flight)…\n');
    await server.close();
    return ExitCode.ok;
  }

  /**
   * The background server: no keys in the log (the chat that started it says where the key is),
   * a pid file while it runs. It stops on SIGTERM (`svc server stop`), and when its pid file goes
   * away (the home deleted, or the file removed by hand): nobody could find it to stop it then.
   */
  private async serveInBackground(home: string, started: Awaited<ReturnType<typeof startBundledServer>>, stopRequested: Promise<void>): Promise<number> {
    const { server, savedKey } = started;
    writePidFile(home, { pid: process.pid, url: server.url, log: serverLogPath(home), started_at: new Date().toISOString() });
    const ready: ReadyMessage = { type: 'svc-server-ready', url: server.url, pid: process.pid, developerId: server.bootstrap?.developerId ?? null, savedKey };
    process.send?.(ready, () => process.disconnect?.());
    let orphanCheck: NodeJS.Timeout | undefined;
    const orphaned = new Promise<void>((resolve) => {
      orphanCheck = setInterval(() => {
        if (readPidFile(home)?.pid !== process.pid) resolve();
      }, PID_FILE_CHECK_MS);
    });
    await Promise.race([stopRequested, orphaned]);
    clearInterval(orphanCheck);
    await server.close();
    removePidFile(home, process.pid);
    return ExitCode.ok;
  }

  private async checkLedger(location: DatabaseLocation): Promise<number> {
    const { stdout, stderr } = this.context;
    const { checkLedger } = await loadServer();
    const dbPath = shownLocation(location);
    if (location.kind === 'file' && !existsSync(location.path)) {
      stderr.write(`svc: no database at ${dbPath}\n`);
      return ExitCode.usage;
    }
    let report;
    try {
      report = await checkLedger(locationText(location));
    } catch (error) {
      stderr.write(`svc: ${(error as Error).message}\n`);
      return ExitCode.apiError;
    }
    const credits = (micro: string) => formatMicro(BigInt(micro));
    const { figures } = report;
    const lines = [
      report.ok
        ? `The ledger of ${dbPath} is consistent: every balance equals its entries, and every live credit has a source.`
        : `The ledger of ${dbPath} is NOT consistent:`,
      ...report.problems.map((problem) => `  ✗ ${problem}`),
      'Live credits:',
      ...Object.entries(figures.sources).map(([kind, micro]) => `  + ${credits(micro)} from ${kind}`),
      ...(figures.legacy !== '0' ? [`  + ${credits(figures.legacy)} from entries written before every credit needed a source`] : []),
      `  − ${credits(figures.spent)} spent on inference`,
      `  = ${credits(figures.liveBalances)} in live balances`,
    ];
    if (report.shortfalls.length > 0) {
      lines.push(`Requests that cost more than the balance could pay (${report.shortfalls.length}):`);
      for (const s of report.shortfalls) {
        lines.push(`  ${s.at} ${s.requestId} app ${s.appUuid}${s.address ? ` user ${s.address}` : ''}: cost ${s.costMicro} µcredits, charged ${s.chargedMicro}`);
      }
    }
    stdout.write(`${lines.join('\n')}\n`);
    return report.ok ? ExitCode.ok : ExitCode.apiError;
  }
}

/** Micro-credits as credits, exactly (BigInt: no rounding, however large). */
function formatMicro(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const abs = micro < 0n ? -micro : micro;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${sign}${abs / 1_000_000n}${fraction ? `.${fraction}` : ''} credits`;
}
