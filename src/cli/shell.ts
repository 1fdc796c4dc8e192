/** `text` in single quotes, for any POSIX shell (and zsh): `'` becomes `'\''`. */
export function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `text` as a shell word: bare when it needs no quoting, else single-quoted. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./+-]+$/.test(text) ? text : singleQuoted(text);
}
