/**
 * OSC 52: the terminal puts `text` on the system clipboard. It works over SSH and in tmux (with
 * `set-clipboard on`), needs no helper program, and moves no cursor, so Ink's frame is untouched.
 */
export function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}
