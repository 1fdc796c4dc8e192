export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/**
 * The scripts ask `svc __complete <words…>` what fits, as cobra's do, so one table (the same as
 * `--help`'s) and the server's own lists (models, app ids) answer Tab in every shell. The answer
 * is the candidates, a line each, then `:files` (file names may be offered instead) or `:nofiles`.
 */

const bash = `# svc completion for bash: eval "$(svc completion bash)" in ~/.bashrc
_svc_complete() {
  local IFS=$'\\n' lines directive
  lines=($(svc __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)) || return 0
  (( \${#lines[@]} )) || return 0
  directive="\${lines[\${#lines[@]}-1]}"
  unset 'lines[\${#lines[@]}-1]'
  COMPREPLY=("\${lines[@]}")
  if [[ \${#COMPREPLY[@]} -eq 0 && "$directive" == ":files" ]]; then compopt -o default 2>/dev/null; fi
  return 0
}
complete -F _svc_complete svc
`;

const zsh = `#compdef svc
# svc completion for zsh: eval "$(svc completion zsh)" in ~/.zshrc (after compinit)
_svc() {
  local -a lines
  local directive
  lines=("\${(@f)$(svc __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  directive="\${lines[-1]}"
  lines=("\${(@)lines[1,-2]}")
  if (( \${#lines} )); then
    compadd -- "\${lines[@]}"
  elif [[ "$directive" == ":files" ]]; then
    _files
  fi
}
compdef _svc svc
`;

const fish = `# svc completion for fish: svc completion fish > ~/.config/fish/completions/svc.fish
function __svc_complete
  set -l lines (svc __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
  set -l directive $lines[-1]
  set -e lines[-1]
  if test (count $lines) -gt 0
    printf '%s\\n' $lines
  else if test "$directive" = ":files"
    __fish_complete_path (commandline -ct)
  end
end
complete -c svc -e
complete -c svc -f -a '(__svc_complete)'
`;

export const completionScript: Record<Shell, string> = { bash, zsh, fish };
