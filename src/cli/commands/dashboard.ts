import { Command, Option, UsageError } from 'clipanion';
import { MOST_REFRESH_SECONDS, refreshFromSeconds } from '../../tui/dashboard/refresh.js';
import { SCREEN_IDS, isScreenId } from '../../tui/dashboard/screens.js';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';
import { loadManifest } from '../manifest.js';

const isTerminal = (stream: unknown) => Boolean((stream as { isTTY?: boolean }).isTTY);

export class DashboardCommand extends SvcCommand {
  static override paths = [['dashboard']];
  static override usage = Command.Usage({
    category: 'Dashboard',
    description: 'Manage apps, keys, users, usage, credits and the subscription in the terminal',
    details: [
      `Screens: ${SCREEN_IDS.join(', ')} (the first is apps). Tab or the number keys switch screens, ↑ ↓ and Enter select, Esc goes back, ? lists every key, q quits.`,
      'The current screen reloads every 5 s, whichever it is; `--refresh SECONDS` sets that interval (0: off, r still reloads), and - + Space change it while it runs.',
      'It needs a terminal; scripts use `svc api …`, which calls the same operations.',
    ].join('\n\n'),
    examples: [
      ['Open the dashboard', 'svc dashboard'],
      ['Open it on the usage screen', 'svc dashboard usage'],
      ['Watch the providers, reloaded every 2 s', 'svc dashboard providers --refresh 2'],
    ],
  });

  screen = Option.String({ name: 'screen', required: false });
  refresh = Option.String('--refresh', { description: `Seconds between reloads of the current screen, 0 to ${MOST_REFRESH_SECONDS} (0: off; default 5)` });

  async execute(): Promise<number> {
    const { stdin, stdout, stderr } = this.context;
    const screen = this.screen;
    if (screen !== undefined && !isScreenId(screen)) {
      throw new UsageError(`Unknown screen "${screen}": one of ${SCREEN_IDS.join(', ')}.`);
    }
    const refresh = this.refresh === undefined ? undefined : refreshFromSeconds(this.refresh);
    if (refresh === null) {
      throw new UsageError(`--refresh must be a whole number of seconds from 0 (off) to ${MOST_REFRESH_SECONDS} (got "${this.refresh}").`);
    }
    if (!isTerminal(stdin) || !isTerminal(stdout)) {
      stderr.write('svc dashboard needs a terminal (stdin and stdout); from a script use `svc api …`, e.g. `svc api developer apps list`.\n');
      return ExitCode.usage;
    }
    let connection;
    let client;
    try {
      connection = this.connection();
      client = this.client();
    } catch (error) {
      if (error instanceof UsageError) throw error;
      return this.report(error);
    }
    // Ink, React and the screens load here only, so no other command pays for them.
    const [{ launchDashboard }, { createDashboardApi }, { openUrl }, operations] = await Promise.all([
      import('../../tui/dashboard/launch.js'),
      import('../../tui/dashboard/client-api.js'),
      import('../../tui/shared/open-url.js'),
      loadManifest(),
    ]);
    await launchDashboard({
      api: createDashboardApi({ client, operations, apiKey: connection.apiKey }),
      initialScreen: screen,
      ...(refresh ? { refresh } : {}),
      openUrl,
      now: () => new Date(),
      serverUrl: connection.apiUrl,
    });
    return ExitCode.ok;
  }
}
