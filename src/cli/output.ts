import type { Writable } from 'node:stream';
import { clientEnvironment } from '../client/environment.js';

const ANSI = { key: '\u001b[36m', string: '\u001b[32m', number: '\u001b[33m', literal: '\u001b[35m', reset: '\u001b[0m' };

/** Whether the stream is a terminal (stdin or stdout). */
export function isTty(stream: Writable | NodeJS.ReadableStream): boolean {
  return Boolean((stream as Writable & { isTTY?: boolean }).isTTY);
}

export function useColor(stream: Writable, env: NodeJS.ProcessEnv): boolean {
  const { NO_COLOR, TERM } = clientEnvironment(env);
  return isTty(stream) && NO_COLOR === undefined && TERM !== 'dumb';
}

function colorize(json: string): string {
  return json.replace(
    /("(?:\\u[\da-fA-F]{4}|\\[^u]|[^\\"])*")(\s*:)?|\b(?:true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
    (match, quoted: string | undefined, colon: string | undefined) => {
      if (quoted) return colon ? `${ANSI.key}${quoted}${ANSI.reset}${colon}` : `${ANSI.string}${quoted}${ANSI.reset}`;
      return /^[tfn]/.test(match) ? `${ANSI.literal}${match}${ANSI.reset}` : `${ANSI.number}${match}${ANSI.reset}`;
    },
  );
}

/** JSON for people on a terminal (indented, coloured unless NO_COLOR), one compact line for pipes. */
export function writeJson(stream: Writable, value: unknown, env: NodeJS.ProcessEnv): void {
  if (!isTty(stream)) {
    stream.write(`${JSON.stringify(value)}\n`);
    return;
  }
  const pretty = JSON.stringify(value, null, 2);
  stream.write(`${useColor(stream, env) ? colorize(pretty) : pretty}\n`);
}

/** One JSON object per line, whatever the stream is: for streamed answers. */
export function writeJsonLine(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value)}\n`);
}
