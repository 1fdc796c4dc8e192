import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { SvcCommand } from '../base-command.js';
import { completionScript, SHELLS } from '../completion/scripts.js';
import { ExitCode } from '../exit-codes.js';

export class CompletionCommand extends SvcCommand {
  // It talks to no server: no --api-url in its options.
  override apiUrl = undefined;
  static override paths = [['completion']];
  static override usage = Command.Usage({
    category: 'Setup',
    description: 'Print a shell completion script',
    details:
      'Completes every command, `svc api` group and operation, flag, the values of enum flags, dashboard screens, and — asked from the server, with a short timeout and a cache in ~/.svc/cache — models and app ids. The script asks `svc __complete` (hidden), as cobra-made CLIs do.',
    examples: [
      ['bash (in ~/.bashrc)', 'eval "$(svc completion bash)"'],
      ['zsh (in ~/.zshrc, after compinit)', 'eval "$(svc completion zsh)"'],
      ['fish', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
    ],
  });
  static placeholders = { shell: `<${SHELLS.join('|')}>` };

  shell = Option.String({ name: 'shell', validator: t.isEnum(SHELLS) });

  async execute(): Promise<number> {
    this.context.stdout.write(completionScript[this.shell]);
    return ExitCode.ok;
  }
}
