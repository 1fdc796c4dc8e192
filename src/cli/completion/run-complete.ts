import { SCREEN_IDS } from '../../tui/dashboard/screens.js';
import type { SvcContext } from '../base-command.js';
import { commandWords } from '../command-words.js';
import { resolveConnection, svcHome } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { namePlaceholders, placeholderTable } from '../placeholders.js';
import { complete } from './complete.js';
import { remoteValues } from './remote-values.js';
import { SHELLS } from './scripts.js';
import { commandShapes } from './spec.js';

/** The argument lists completion knows without asking anyone. */
const FIXED: Record<string, readonly string[]> = { screen: SCREEN_IDS, shell: SHELLS };

/** `--api-url URL` or `--api-url=URL` on the line being completed: the server it will talk to. */
function typedApiUrl(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length - 1; i++) {
    const word = words[i] as string;
    if (word.startsWith('--api-url=')) return word.slice('--api-url='.length);
    if (word === '--api-url' && i + 1 < words.length - 1) return words[i + 1];
  }
  return undefined;
}

/**
 * `svc __complete <words…>` (hidden; the shell scripts call it, as cobra's do): prints the
 * candidates for the last word, one a line, then `:files` when the shell may offer file names
 * instead, `:nofiles` when it must not. It never fails: a broken config or an absent server
 * just means fewer candidates.
 */
export async function runComplete(words: string[], context: SvcContext): Promise<number> {
  const { buildCli, allCommands } = await import('../run.js');
  const [cli, commands] = await Promise.all([buildCli(false, []), allCommands()]);
  // Option definitions read `--tier #0`; name the values as `--help` does, so completion knows what each takes.
  const tables = new Map(commands.map((command) => [(command.paths?.[0] ?? []).join(' '), placeholderTable(command)]));
  const shapes = commandShapes(
    cli.definitions().map((definition) => {
      const table = tables.get(commandWords(definition.path).join(' '));
      return { ...definition, options: definition.options.map((option) => ({ definition: namePlaceholders(option.definition, table) })) };
    }),
  );
  const result = await complete(words.length > 0 ? words : [''], shapes, FIXED, async (source) => {
    try {
      const connection = resolveConnection(context.env, typedApiUrl(words));
      return await remoteValues(source, { home: svcHome(context.env), apiUrl: connection.apiUrl, apiKey: connection.apiKey });
    } catch {
      return [];
    }
  });
  context.stdout.write([...result.candidates, result.files ? ':files' : ':nofiles'].join('\n') + '\n');
  return ExitCode.ok;
}
