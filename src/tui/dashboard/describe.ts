/**
 * `d`: the selected row as the API gave it, pretty JSON, cut to the dialog's width (a long
 * value goes on in the next line, indented as its own) so that scrolling counts real lines.
 */

/** The JSON lines of `value`, none wider than `width`. */
export function describeLines(value: unknown, width: number): string[] {
  const room = Math.max(10, width);
  return JSON.stringify(value, null, 2)
    .split('\n')
    .flatMap((line) => {
      const chars = [...line];
      if (chars.length <= room) return [line];
      const indent = ' '.repeat(Math.min(room - 4, (/^ */.exec(line)?.[0].length ?? 0) + 2));
      const rest = room - indent.length;
      const pieces = [chars.slice(0, room).join('')];
      for (let at = room; at < chars.length; at += rest) pieces.push(indent + chars.slice(at, at + rest).join(''));
      return pieces;
    });
}

/** The room the describe dialog has for its JSON inside a body of `columns` × `rows`. */
export function describeRoom(view: { columns: number; rows: number }): { width: number; rows: number } {
  // A border and a space each side; the border, the title and the hint line above and below.
  return { width: Math.max(10, view.columns - 4), rows: Math.max(1, view.rows - 4) };
}

/** What a row is called in the dialog's title: its name, title, label, address or id. */
export function rowName(row: object): string {
  const fields = row as Record<string, unknown>;
  for (const field of ['name', 'title', 'label', 'address', 'tier', 'id', 'key_id', 'app_uuid']) {
    const value = fields[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return 'the selected row';
}
