import { Builtins, Cli, UsageError, type CommandClass } from 'clipanion';
import { VERSION } from '../version.js';
import { clientEnvironment } from '../client/environment.js';
import { NotLoggedInError, type SvcContext } from './base-command.js';
import { apiCommandFor } from './commands/api.js';
import { ExitCode } from './exit-codes.js';
import { loadManifest } from './manifest.js';
import { namePlaceholders, placeholderTable } from './placeholders.js';
import { groupIndex, topHelp } from './help.js';
import { explainMistake, typedCommand, usageError } from './mistakes.js';

type Commands = Promise<CommandClass<SvcContext>[]>;

/**
 * The commands that are not generated from the contract, by the first word of their paths, each
 * loaded only when its word is typed (or the whole table is needed).
 */
const HAND_WRITTEN = {
  auth: async (): Commands => {
    const [login, status, logout] = await Promise.all([import('./commands/auth-login.js'), import('./commands/auth-status.js'), import('./commands/auth-logout.js')]);
    return [login.AuthLoginCommand, status.AuthStatusCommand, logout.AuthLogoutCommand];
  },
  serve: async (): Commands => [(await import('./commands/serve.js')).ServeCommand],
  chat: async (): Commands => [(await import('./commands/chat.js')).ChatCommand],
  dashboard: async (): Commands => [(await import('./commands/dashboard.js')).DashboardCommand],
  docs: async (): Commands => [(await import('./commands/docs.js')).DocsCommand],
  new: async (): Commands => [(await import('./commands/new.js')).NewCommand],
  admin: async (): Commands => {
    const [createDeveloper, listDevelopers, createKey, grant, migrate] = await Promise.all([
      import('./commands/admin-developers-create.js'),
      import('./commands/admin-developers-list.js'),
      import('./commands/admin-keys-create.js'),
      import('./commands/admin-credits-grant.js'),
      import('./commands/admin-migrate.js'),
    ]);
    return [
      createDeveloper.AdminDevelopersCreateCommand,
      listDevelopers.AdminDevelopersListCommand,
      createKey.AdminKeysCreateCommand,
      grant.AdminCreditsGrantCommand,
      migrate.AdminMigrateCommand,
    ];
  },
  completion: async (): Commands => [(await import('./commands/completion.js')).CompletionCommand],
  server: async (): Commands => {
    const server = await import('./commands/server.js');
    return [server.ServerStatusCommand, server.ServerStopCommand, server.ServerLogsCommand];
  },
} satisfies Record<string, () => Commands>;

/** Every hand-written command. */
async function handWrittenCommands(): Commands {
  return (await Promise.all(Object.values(HAND_WRITTEN).map((load) => load()))).flat();
}

/**
 * The words whose commands are enough for their command lines: `svc docs` lists every command,
 * so it, like help, typos and every other command line, gets the whole table.
 */
const SELF_CONTAINED: ReadonlySet<string> = new Set<keyof typeof HAND_WRITTEN>(['auth', 'serve', 'chat', 'dashboard', 'new', 'admin', 'server']);
const selfContained = (word: string | undefined): word is keyof typeof HAND_WRITTEN => word !== undefined && SELF_CONTAINED.has(word);

/**
 * The commands one command line can need. `svc api a b c …` registers just the operations whose
 * words it spells (or, failing that, its group), and `svc chat`, `svc admin …` and the other
 * self-contained words just their own commands, because clipanion compiles a state machine over
 * every registered command (~100 ms of `svc chat`'s start over the whole table) and start-up is
 * most of a CLI call. Help, typos and every other command see the whole table, suggestions
 * included.
 */
async function commandsFor(argv: readonly string[]): Commands {
  const first = argv[0];
  if (selfContained(first)) return HAND_WRITTEN[first]();
  const manifest = await loadManifest();
  if (argv[0] === 'api') {
    if (argv[1]?.startsWith('/')) return [(await import('./commands/api-raw.js')).ApiRawCommand];
    const words = argv.slice(1);
    const exact = manifest.filter((op) => op.cli.every((word, i) => words[i] === word));
    const group = manifest.filter((op) => op.cli[0] === words[0]);
    const chosen = exact.length > 0 ? exact : group;
    if (chosen.length > 0) return chosen.map(apiCommandFor);
  }
  return [...(await handWrittenCommands()), ...manifest.map(apiCommandFor)];
}

/** Every command svc has, for tools that need the whole table (completion). */
export function allCommands(): Commands {
  return commandsFor([]);
}

export async function buildCli(colored = false, argv: readonly string[] = []): Promise<Cli<SvcContext>> {
  const cli = new Cli<SvcContext>({
    binaryLabel: 'svc',
    binaryName: 'svc',
    binaryVersion: VERSION,
    enableCapture: false,
    enableColors: colored,
  });
  const commands = await commandsFor(argv);
  for (const command of commands) cli.register(command);
  // Every help text, `svc docs` included, names the values of its options.
  const usage = cli.usage.bind(cli);
  cli.usage = (command, options) => {
    const owner = command === null || command === undefined ? {} : typeof command === 'function' ? command : command.constructor;
    return namePlaceholders(usage(command, options), placeholderTable(owner));
  };
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  return cli;
}

/**
 * clipanion reads any word that starts with `-` as an option, so `--credits -5` or
 * `--idp-verification-key "-----BEGIN PUBLIC KEY-----…"` would lose their value. A word that
 * cannot be an option (a negative number, a run of dashes, anything with white space) after a
 * long option that takes a value is joined to it as `--option=value`.
 */
export function joinDashValues(argv: readonly string[], booleanFlags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    const next = argv[i + 1];
    const takesValue = /^--[a-z][a-z0-9-]*$/.test(word) && !booleanFlags.has(word);
    if (takesValue && next !== undefined && /^-(\d|\.\d|-{2,}[^-]|-{3,})|^-.*\s/s.test(next)) {
      out.push(`${word}=${next}`);
      i++;
    } else {
      out.push(word);
    }
  }
  return out;
}

/**
 * Runs one command line. Unlike clipanion's own `run`, errors go to stderr, and a wrong command
 * line exits 2 (ARCHITECTURE.md §8), so scripts can tell it from an API error.
 */
export async function runCli(argv: string[], context: SvcContext): Promise<number> {
  // What Tab asks (hidden; its words are the command line being typed, not options of its own).
  if (argv[0] === '__complete') return (await import('./completion/run-complete.js')).runComplete(argv.slice(1), context);
  const colored = Boolean((context.stderr as { isTTY?: boolean }).isTTY) && clientEnvironment(context.env).NO_COLOR === undefined;
  const cli = await buildCli(colored, argv);
  const booleanFlags = new Set(['--help', '--version']);
  for (const definition of cli.definitions()) {
    for (const option of definition.options) {
      if (!option.definition.includes(' ') && !option.definition.includes('#')) {
        for (const name of option.definition.split(',')) booleanFlags.add(name.trim());
      }
    }
  }
  // `svc`, `svc --help`: the commands by category. `svc admin`, `svc api credits` (with or
  // without --help): the group's commands, as gh lists them.
  const helpAsked = argv.includes('--help') || argv.includes('-h');
  const words = typedCommand(argv.filter((w) => w !== '--help' && w !== '-h'));
  if ((words.length === 0 && (argv.length === 0 || helpAsked)) || (argv.length === 1 && argv[0] === 'help')) {
    context.stdout.write(topHelp(cli.definitions()));
    return ExitCode.ok;
  }
  const index = groupIndex(words, cli.definitions());
  if (index) {
    context.stdout.write(index);
    return ExitCode.ok;
  }
  let command;
  try {
    command = cli.process(joinDashValues(argv, booleanFlags), context);
  } catch (error) {
    // A command line matching no command: say what is missing, or what was meant. Anything else
    // (an unknown option, a value a validator refused): clipanion's message and the short usage.
    const message = (error as Error).message;
    const unmatched = /command not found|not enough positional/i.test(message);
    context.stderr.write(unmatched ? explainMistake(argv, cli.definitions()) : usageError(argv, cli.definitions(), message));
    return ExitCode.usage;
  }
  if (command.help) {
    context.stdout.write(cli.usage(command, { colored, detailed: true }));
    return ExitCode.ok;
  }
  command.context = context;
  command.cli = {
    binaryLabel: 'svc',
    binaryName: 'svc',
    binaryVersion: VERSION,
    enableCapture: false,
    enableColors: colored,
    definitions: () => cli.definitions(),
    error: (error, opts) => cli.error(error, opts),
    format: (c) => cli.format(c),
    process: (input, sub) => cli.process(input, { ...context, ...sub }),
    run: (input, sub) => cli.run(input, { ...context, ...sub }),
    usage: (c, opts) => cli.usage(c, opts),
  };
  try {
    return (await command.validateAndExecute()) ?? ExitCode.ok;
  } catch (error) {
    if (error instanceof NotLoggedInError) {
      context.stderr.write(`svc: ${error.message}\n`);
      return ExitCode.usage;
    }
    if (error instanceof UsageError) {
      context.stderr.write(usageError(argv, cli.definitions(), error.message));
      return ExitCode.usage;
    }
    context.stderr.write(cli.error(error, { colored, command }));
    return ExitCode.apiError;
  }
}
