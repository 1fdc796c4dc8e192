import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from 'clipanion';

/** Everything a stream holds, as text (stdin read whole: a question, a request body). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** A file a flag names (`--input body.json`, `--json @body.json`); one that cannot be read is the command line's fault. */
export function readFlagFile(flag: string, path: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
}
