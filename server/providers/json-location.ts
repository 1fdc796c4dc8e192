/**
 * Where things are in a JSON text, as `line:column` (both from 1), so that a configuration error
 * points at the line to fix instead of a character offset.
 */

export function lineColumnAt(text: string, offset: number): string {
  const lines = text.slice(0, Math.max(0, offset)).split('\n');
  return `${lines.length}:${(lines.at(-1)?.length ?? 0) + 1}`;
}

type PathKey = string | number;
const keyOf = (path: readonly PathKey[]) => JSON.stringify(path.map(String));

/** A scalar that is no JSON value (`tru`, `hello`), where the parser's message names no offset. */
class NotAValue extends Error {
  constructor(
    readonly offset: number,
    token: string,
  ) {
    super(token ? `'${token}' is not a JSON value` : 'a value is missing');
  }
}

/**
 * The offset where each value starts, by its path (`["providers","0","models","2"]`). It steps
 * over punctuation, strings and scalars: structure is the parser's to judge, but a scalar that
 * is no JSON value throws where it starts.
 */
function scan(text: string): Map<string, number> {
  const offsets = new Map<string, number>();
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  };
  const readString = (): string => {
    const start = at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const readValue = (path: PathKey[]) => {
    skipSpace();
    offsets.set(keyOf(path), at);
    const opening = text[at];
    if (opening === '{' || opening === '[') {
      at++;
      const closing = opening === '{' ? '}' : ']';
      for (let index = 0; ; index++) {
        skipSpace();
        if (text[at] === closing || at >= text.length) break;
        if (opening === '{') {
          const key = readString();
          skipSpace();
          at++; // the colon
          readValue([...path, key]);
        } else readValue([...path, index]);
        skipSpace();
        if (text[at] === ',') at++;
      }
      at++;
    } else if (opening === '"') readString();
    else {
      const start = at;
      while (at < text.length && !',]}: \t\n\r'.includes(text[at] as string)) at++;
      try {
        JSON.parse(text.slice(start, at));
      } catch {
        throw new NotAValue(start, text.slice(start, at));
      }
    }
  };
  readValue([]);
  return offsets;
}

/** Where each value of a valid JSON text starts, by its path (`['providers', 0, 'models', 2]`). */
export function valueOffsets(text: string): (path: readonly PathKey[]) => number | undefined {
  const offsets = scan(text);
  return (path) => offsets.get(keyOf(path));
}

/**
 * JSON.parse's message without the offset it names ("at position 170", and the "(line 5 column 3)"
 * newer Node versions add), and that offset. Some messages name none ("Unexpected token 'u',
 * "{"a": tru}" is not valid JSON"): then the scalar that is no value, else the end of the text.
 */
export function parseErrorAt(message: string, text: string): { message: string; offset: number } {
  const position = / (?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  if (position) return { message: message.replace(position[0], ''), offset: Number(position[1]) };
  try {
    scan(text);
  } catch (error) {
    if (error instanceof NotAValue) return { message: error.message, offset: error.offset };
  }
  return { message: message.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, ''), offset: text.length };
}
