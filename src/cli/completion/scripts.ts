import { singleQuoted } from '../shell.js';
import type { CompletionSpec } from './spec.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const fishQuote = (text: string): string => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

function table(name: string, entries: Map<string, string[]>, pair: (key: string, value: string) => string): string {
  return [`${name}=(`, ...[...entries].map(([key, words]) => `  ${pair(key, words.join(' '))}`), ')'].join('\n');
}

/**
 * bash: the command path is the longest run of words the table knows; after an enum flag its
 * values, on `-` the command's flags, else the next words. `-o default` falls back to file names
 * (for `--json @file` and positional arguments).
 */
function bash(spec: CompletionSpec): string {
  const pair = (key: string, value: string) => `[${singleQuoted(key)}]=${singleQuoted(value)}`;
  return `# svc completion for bash: eval "$(svc completion bash)" in ~/.bashrc
declare -gA _svc_next _svc_flags _svc_values
${table('_svc_next', spec.next, pair)}
${table('_svc_flags', spec.flags, pair)}
${table('_svc_values', spec.values, pair)}
_svc_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path=svc key i
  for ((i = 1; i < COMP_CWORD; i++)); do
    key="$path \${COMP_WORDS[i]}"
    if [[ -n "\${_svc_next[$key]+x}" || -n "\${_svc_flags[$key]+x}" ]]; then path="$key"; else break; fi
  done
  if [[ -n "\${_svc_values[$path $prev]+x}" ]]; then
    COMPREPLY=($(compgen -W "\${_svc_values[$path $prev]}" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "\${_svc_flags[$path]}" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "\${_svc_next[$path]}" -- "$cur"))
  fi
}
complete -o default -F _svc_complete svc
`;
}

/** zsh: the same walk with compadd; `_files` where no word is known. */
function zsh(spec: CompletionSpec): string {
  const pair = (key: string, value: string) => `${singleQuoted(key)} ${singleQuoted(value)}`;
  return `#compdef svc
# svc completion for zsh: eval "$(svc completion zsh)" in ~/.zshrc (after compinit)
typeset -gA _svc_next _svc_flags _svc_values
${table('_svc_next', spec.next, pair)}
${table('_svc_flags', spec.flags, pair)}
${table('_svc_values', spec.values, pair)}
_svc() {
  local path=svc key i
  for ((i = 2; i < CURRENT; i++)); do
    key="$path \${words[i]}"
    if (( \${+_svc_next[$key]} || \${+_svc_flags[$key]} )); then path="$key"; else break; fi
  done
  key="$path \${words[CURRENT-1]}"
  if (( \${+_svc_values[$key]} )); then
    compadd -- \${=_svc_values[$key]}
  elif [[ "$PREFIX" == -* ]]; then
    compadd -- \${=_svc_flags[$path]}
  elif (( \${+_svc_next[$path]} )); then
    compadd -- \${=_svc_next[$path]}
  else
    _files
  fi
}
compdef _svc svc
`;
}

/** fish: one `complete` line per path and flag, conditioned on the path the command line spells. */
function fish(spec: CompletionSpec): string {
  const paths = [...new Set([...spec.next.keys(), ...spec.flags.keys()])].filter((path) => path !== 'svc');
  const when = (path: string) => `-n ${fishQuote(`test (__svc_path) = ${fishQuote(path)}`)}`;
  const lines = [
    '# svc completion for fish: svc completion fish > ~/.config/fish/completions/svc.fish',
    `set -g __svc_paths ${paths.map(fishQuote).join(' ')}`,
    'function __svc_path',
    '  set -l path svc',
    '  for word in (commandline -opc)[2..-1]',
    '    if contains -- "$path $word" $__svc_paths',
    '      set path "$path $word"',
    '    else',
    '      break',
    '    end',
    '  end',
    '  echo $path',
    'end',
    'complete -c svc -e',
  ];
  for (const [path, words] of spec.next) lines.push(`complete -c svc -f ${when(path)} -a ${fishQuote(words.join(' '))}`);
  for (const [path, flags] of spec.flags) {
    for (const flag of flags) {
      const choices = spec.values.get(`${path} ${flag}`);
      lines.push(`complete -c svc ${when(path)} -l ${flag.slice(2)}${choices ? ` -x -a ${fishQuote(choices.join(' '))}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const completionScript: Record<Shell, (spec: CompletionSpec) => string> = { bash, zsh, fish };
