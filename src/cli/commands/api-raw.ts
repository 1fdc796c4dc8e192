import { Command, Option, UsageError } from 'clipanion';
import type { OperationManifest } from '../../contract/manifest.js';
import { ApiOutputCommand } from '../api-output-command.js';
import { readAll, readFlagFile } from '../read-all.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * `/models` means `/api/v1/models`, as `gh api repos/…` means the API's base. A path the API
 * serves outside `/api/v1` (`/health`, `/.well-known/…`), or one already under `/api/`, is
 * taken as it is.
 */
export function rawApiPath(path: string, manifest: readonly Pick<OperationManifest, 'path' | 'absolutePath'>[]): string {
  const firstSegment = (p: string) => p.split(/[/?#]/)[1] ?? '';
  const outside = new Set(['api', ...manifest.filter((op) => op.absolutePath).map((op) => firstSegment(op.path))]);
  return outside.has(firstSegment(path)) ? path : `/api/v1${path}`;
}

/** `-H 'name: value'` → [name, value]. */
function header(raw: string): [string, string] {
  const colon = raw.indexOf(':');
  const name = colon > 0 ? raw.slice(0, colon).trim() : '';
  if (!/^[!#$%&'*+.^_`|~\w-]+$/.test(name)) throw new UsageError(`-H expects name:value (got ${JSON.stringify(raw)}).`);
  return [name.toLowerCase(), raw.slice(colon + 1).trim()];
}

/** `svc api <path>`: any request to the API, as `gh api <endpoint>`. */
export class ApiRawCommand extends ApiOutputCommand {
  static override paths = [['api']];
  static override usage = Command.Usage({
    category: 'API',
    description: 'Call any path of the API (as gh api does)',
    details:
      'The path is under `/api/v1` unless it is one the API serves elsewhere (`/health`, `/.well-known/jwks.json`) or starts with `/api/`. The method is GET, or POST with `--input`. Errors exit 1: one line on a terminal, the JSON error body on stderr when piped.',
    examples: [
      ['List the models', 'svc api /models'],
      ['Only their ids', "svc api /models --jq '.data[].id'"],
      ['Create an app from a file', 'svc api /developer/apps -X POST --input app.json'],
      ['See the headers and the request id', 'svc api /key -i'],
    ],
  });
  static placeholders = { '--method': 'method', '--header': 'name:value', '--input': 'file|-' };

  endpoint = Option.String({ name: 'path', required: true });
  method = Option.String('-X,--method', { description: `The HTTP method (${METHODS.join(', ')}); GET, or POST with --input` });
  headers = Option.Array('-H,--header', [], { description: 'An extra request header, name:value (repeatable)' });
  input = Option.String('--input', { description: 'The request body: a file, or - for stdin' });

  private async body(): Promise<string | undefined> {
    if (this.input === undefined) return undefined;
    return this.input === '-' ? readAll(this.context.stdin) : readFlagFile(`--input ${this.input}`, this.input, this.context.cwd);
  }

  async execute(): Promise<number> {
    if (!this.endpoint.startsWith('/')) throw new UsageError(`The path starts with / (got ${JSON.stringify(this.endpoint)}), e.g. svc api /models.`);
    const method = (this.method ?? (this.input !== undefined ? 'POST' : 'GET')).toUpperCase();
    if (!METHODS.includes(method)) throw new UsageError(`-X expects one of ${METHODS.join(', ')} (got ${JSON.stringify(this.method)}).`);
    const extra = Object.fromEntries(this.headers.map(header));
    const body = await this.body();
    const { loadManifest } = await import('../manifest.js');
    try {
      const client = this.client({ requireKey: false });
      const url = new URL(rawApiPath(this.endpoint, await loadManifest()), client.baseUrl);
      return await this.send({ method, url, headers: { ...client.headers(body !== undefined), ...extra }, body }, { expectJson: false });
    } catch (error) {
      return this.report(error);
    }
  }
}
