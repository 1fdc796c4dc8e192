import { Command, Option } from 'clipanion';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { SvcCommand } from '../base-command.js';
import { commandWords } from '../command-words.js';
import { ExitCode } from '../exit-codes.js';
import { useColor, writeJson } from '../output.js';

export class DocsCommand extends SvcCommand {
  // It talks to no server: no --api-url in its options.
  override apiUrl = undefined;
  static override paths = [['docs']];
  static override usage = Command.Usage({
    category: 'Docs',
    description: 'Print the help of every command, or the API as a tools schema for agents',
    details: [
      'Without options: the `--help` of every command, grouped by category.',
      'With `--json`: a JSON array of function tools in the OpenAI format, one per `svc api` command, named `svc_api_<words>` (e.g. `svc_api_developer_apps_create`); the parameters are the path arguments (required), query and body fields with their JSON Schema. Commands that are interactive or change this machine (chat, dashboard, serve, auth, new) are not tools.',
    ].join('\n\n'),
    examples: [
      ['Every command', 'svc docs'],
      ['Tools for an agent', 'svc docs --json > svc-tools.json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print the tools schema (JSON) instead of the help text' });

  async execute(): Promise<number> {
    const { stdout, env } = this.context;
    if (this.json) {
      const [{ loadManifest }, { toolsSchema }] = await Promise.all([import('../manifest.js'), import('../../contract/tools-schema.js')]);
      writeJson(stdout, toolsSchema(await loadManifest()), env);
      return ExitCode.ok;
    }
    const text = await this.allHelp();
    stdout.write(useColor(stdout, env) ? text : stripVTControlCharacters(text));
    return ExitCode.ok;
  }

  /**
   * Every command's help under a `## svc <words>` heading, grouped under `# <category>`;
   * categories in the order their commands are registered (hand-written ones, then the API's).
   */
  private async allHelp(): Promise<string> {
    const byCategory = new Map<string, string[]>();
    for (const definition of this.cli.definitions()) {
      const category = definition.category?.trim() || 'Other';
      const words = commandWords(definition.path);
      const helps = byCategory.get(category) ?? [];
      byCategory.set(category, helps);
      helps.push(`## svc ${words.join(' ')}\n\n${await this.helpOf(words)}`);
    }
    const sections = [...byCategory].map(([category, helps]) => `# ${category}\n\n${helps.join('\n')}`);
    const title = `${this.cli.binaryLabel ?? 'svc'} ${this.cli.binaryVersion ?? ''}: every command, by category (\`svc <command> --help\` prints one).`;
    return `${title}\n\n${sections.join('\n')}`;
  }

  /** Exactly what `svc <words> --help` prints: clipanion's help command, run into a string. */
  private async helpOf(words: string[]): Promise<string> {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    await this.cli.run([...words, '--help'], { stdout: sink });
    return text;
  }
}
