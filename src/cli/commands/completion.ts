import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { SvcCommand } from '../base-command.js';
import { completionScript, SHELLS } from '../completion/scripts.js';
import { commandWords } from '../command-words.js';
import { completionSpec } from '../completion/spec.js';
import { ExitCode } from '../exit-codes.js';
import { namePlaceholders, placeholderTable } from '../placeholders.js';

export class CompletionCommand extends SvcCommand {
  // It talks to no server: no --api-url in its options.
  override apiUrl = undefined;
  static override paths = [['completion']];
  static override usage = Command.Usage({
    category: 'Setup',
    description: 'Print a shell completion script',
    details:
      'Completes every command, `svc api` group and operation, flag, and the values of enum flags, from the same table as `--help`. The script is static: Tab costs no Node start.',
    examples: [
      ['bash (in ~/.bashrc)', 'eval "$(svc completion bash)"'],
      ['zsh (in ~/.zshrc, after compinit)', 'eval "$(svc completion zsh)"'],
      ['fish', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
    ],
  });
  static placeholders = { shell: `<${SHELLS.join('|')}>` };

  shell = Option.String({ name: 'shell', validator: t.isEnum(SHELLS) });

  async execute(): Promise<number> {
    // Option definitions read `--tier #0`; name the values as `--help` does, so enums show.
    const { allCommands } = await import('../run.js');
    const tables = new Map((await allCommands()).map((command) => [(command.paths?.[0] ?? []).join(' '), placeholderTable(command)]));
    const definitions = this.cli.definitions().map((definition) => {
      const table = tables.get(commandWords(definition.path).join(' '));
      return { path: definition.path, options: definition.options.map((option) => ({ definition: namePlaceholders(option.definition, table) })) };
    });
    this.context.stdout.write(completionScript[this.shell](completionSpec(definitions)));
    return ExitCode.ok;
  }
}
