import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** What `--jq` made of a value: jq's printed output, or jq's own error and whether it was the expression's fault. */
export type JqOutcome = { ok: true; output: string } | { ok: false; message: string; badExpression: boolean };

type Jq = Awaited<ReturnType<typeof import('jq-wasm').loadJq>>;
let loaded: Promise<Jq> | undefined;

/**
 * jq itself (jq 1.8, compiled to WebAssembly in the jq-wasm package): loaded only when `--jq` is
 * given. The wasm is read from the installed package rather than next to the bundle, so the
 * bundler can fold the JavaScript glue into the CLI's chunk and nothing is fetched at run time.
 */
function jq(): Promise<Jq> {
  loaded ??= import('jq-wasm').then(({ loadJq }) => {
    const wasm = readFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'));
    return loadJq({ wasmBinary: wasm });
  });
  return loaded;
}

/**
 * Runs `expression` over the JSON text `jsonText` as `gh api --jq` does: strings come out raw, anything else as
 * JSON, indented for people on a terminal and one compact line each for pipes.
 */
export async function runJq(jsonText: string, expression: string, options: { pretty: boolean }): Promise<JqOutcome> {
  const flags = options.pretty ? ['-r'] : ['-r', '-c'];
  const result = (await jq()).raw(jsonText, expression, flags);
  // jq exits 3 for an expression it cannot compile, 5 for an error while running it.
  if (result.exitCode !== 0) return { ok: false, message: result.stderr.trim() || `jq exited ${result.exitCode}`, badExpression: result.exitCode === 3 };
  return { ok: true, output: result.stdout.length > 0 ? `${result.stdout}\n` : '' };
}
