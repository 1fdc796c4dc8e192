import { Command, Option, UsageError } from 'clipanion';
import { readAll, readFlagFile } from '../read-all.js';
import type { Field } from '../../contract/json-schema.js';
import type { OperationManifest } from '../../contract/manifest.js';
import { ApiOutputCommand, INCLUDE_DESCRIPTION } from '../api-output-command.js';
import type { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';
import { kebab, flagKind, parseFlag, parseJsonBody } from '../flags.js';
import { isTty, writeJsonLine } from '../output.js';
import { placeholderOf } from '../placeholders.js';

type Located = Field & { in: 'query' | 'body' };
interface ApiRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

function describeField(field: Field): string {
  const parts = [field.schema.description ?? ''];
  if (field.schema.enum) parts.push(`one of: ${field.schema.enum.join(', ')}`);
  if (field.required) parts.push('required');
  return parts.filter(Boolean).join('; ');
}

function example(op: OperationManifest, flags: Located[]): string {
  const words = ['svc api', ...op.cli, ...op.params.map((p) => `<${kebab(p.name)}>`)];
  for (const flag of flags.filter((f) => f.required)) words.push(`--${kebab(flag.name)} <${placeholderOf(flag)}>`);
  return words.join(' ');
}

/**
 * One `svc api …` command for an operation of the contract: path arguments are positionals,
 * each query or body field is a `--kebab-case` flag, and `--json` gives the whole body.
 * The CLI checks what it must to build the request (required fields, value types); the server
 * validates everything and names the field in its 400.
 */
export function apiCommandFor(op: OperationManifest) {
  const flags: Located[] = [
    ...op.query.map((f) => ({ ...f, in: 'query' as const })),
    ...op.body.map((f) => ({ ...f, in: 'body' as const })),
  ];

  // A list: pages by limit/offset, or by page_token (models).
  const paging = op.query.some((f) => f.name === 'offset') ? 'offset' : op.query.some((f) => f.name === 'page_token') ? 'token' : null;

  class ApiOperationCommand extends ApiOutputCommand {
    static override paths = [['api', ...op.cli]];
    /** What each option's value is, for `--help`. */
    static placeholders = Object.fromEntries(flags.map((f) => [`--${kebab(f.name)}`, placeholderOf(f)]));
    static override usage = Command.Usage({
      category: `API: ${op.cli[0]}`,
      description: op.summary,
      details: `Calls \`${op.method} ${op.absolutePath ? '' : '/api/v1'}${op.path}\`.${
        op.hasBody ? ' Give the body as flags, as `--json <object>`, or both (flags win).' : ''
      }${op.stream ? ' With `--stream`, prints one JSON object per line as the answer arrives.' : ''}`,
      examples: [[op.summary, example(op, flags)]],
    });

    json = op.hasBody
      ? Option.String('--json', { description: 'The request body: a JSON object, @file to read it from a file, - from stdin; flags override its fields' })
      : undefined;

    // `-i` alone where the operation has a field of that name (responses' `include`): the field keeps `--include`.
    override include = flags.some((f) => f.name === 'include')
      ? Option.Boolean('-i', false, { description: INCLUDE_DESCRIPTION })
      : Option.Boolean('-i,--include', false, { description: INCLUDE_DESCRIPTION });

    paginate = paging
      ? Option.Boolean('--paginate', false, {
          description: 'Walk every page: one merged list on a terminal, one JSON line per item when piped',
        })
      : undefined;

    /** The `--json` text: given, read from a file (`@file`), or from stdin (`-`). */
    private async jsonText(): Promise<string | undefined> {
      const given = this.json;
      if (given === undefined) return undefined;
      if (given === '-') return readAll(this.context.stdin);
      return given.startsWith('@') ? readFlagFile(`--json ${given}`, given.slice(1), this.context.cwd) : given;
    }

    constructor() {
      super();
      const self = this as unknown as Record<string, unknown>;
      for (const p of op.params) self[`arg_${p.name}`] = Option.String({ name: kebab(p.name), required: true });
      for (const f of flags) {
        const name = `--${kebab(f.name)}`;
        self[`flag_${f.name}`] =
          flagKind(f) === 'boolean'
            ? Option.Boolean(name, { description: describeField(f) })
            : Option.String(name, { description: describeField(f) });
      }
    }

    private async request(): Promise<ApiRequest> {
      const self = this as unknown as Record<string, unknown>;
      const params = Object.fromEntries(op.params.map((p) => [p.name, self[`arg_${p.name}`]]));
      const query: Record<string, unknown> = {};
      const text = await this.jsonText();
      const body: Record<string, unknown> = text !== undefined ? parseJsonBody(text) : {};
      for (const f of flags) {
        const raw = self[`flag_${f.name}`] as string | boolean | undefined;
        if (raw === undefined) continue;
        if (f.in === 'query') query[f.name] = raw;
        else body[f.name] = parseFlag(f, raw);
      }
      for (const f of flags) {
        const given = f.in === 'query' ? query : body;
        if (f.required && given[f.name] === undefined) {
          const where = f.in === 'body' && op.hasBody ? ` (or "${f.name}" in --json)` : '';
          throw new UsageError(`Missing required field --${kebab(f.name)}${where}.`);
        }
      }
      return { params, query, body: op.hasBody ? body : undefined };
    }

    async execute(): Promise<number> {
      const input = await this.request();
      try {
        const client = this.client({ requireKey: !op.auth.includes('none') });
        const streamed = op.stream && input.body?.stream === true;
        if (this.showsHead && (streamed || this.paginate)) {
          throw new UsageError('-i and --verbose show one request: not with --paginate or --stream.');
        }
        if (streamed) return await this.printStream(client, input);
        if (this.paginate) return await this.printAllPages(client, input);
        if (this.showsHead) return await this.send(client.requestFor(op, input), { expectJson: true });
        return await this.emit(await client.call(op, input));
      } catch (error) {
        return this.report(error);
      }
    }

    /**
     * Every page of a list, in order. On a terminal one merged `{data, total}`; piped, one JSON
     * line per item as the pages come (a script can start on the first item, and `head` stop it).
     */
    private async printAllPages(client: ReturnType<SvcCommand['client']>, input: ApiRequest) {
      const piped = !isTty(this.context.stdout);
      const items: unknown[] = [];
      let query = { ...input.query };
      for (;;) {
        const page = (await client.call(op, { ...input, query })) as { data: unknown[]; total?: number; next_page_token?: string | null };
        if (piped) {
          for (const item of page.data) {
            const code = await this.emitLine(item);
            if (code !== ExitCode.ok) return code;
          }
        } else items.push(...page.data);
        if (paging === 'token') {
          if (!page.next_page_token) break;
          query = { ...query, page_token: page.next_page_token };
        } else {
          const offset = Number(query.offset ?? 0) + page.data.length;
          if (page.data.length === 0 || offset >= (page.total ?? 0)) break;
          query = { ...query, offset };
        }
      }
      return piped ? ExitCode.ok : this.emit({ data: items, total: items.length });
    }

    /** One value as one line (a page's item, a streamed event), through `--jq` when given. */
    private emitLine(value: unknown): Promise<number> {
      if (this.jq !== undefined) return this.emit(value);
      writeJsonLine(this.context.stdout, value);
      return Promise.resolve(ExitCode.ok);
    }

    /** One JSON object per line; an error event mid-stream goes to stderr and exits 1. */
    private async printStream(client: ReturnType<SvcCommand['client']>, input: ApiRequest) {
      for await (const event of client.stream(op, input)) {
        if (event.data === '[DONE]') break;
        let data: unknown = event.data;
        try {
          data = JSON.parse(event.data);
        } catch {
          // not JSON: print it as a string
        }
        if (typeof data === 'object' && data !== null && 'error' in data && event.event === null) {
          writeJsonLine(this.context.stderr, data);
          return ExitCode.apiError;
        }
        const code = await this.emitLine(data);
        if (code !== ExitCode.ok) return code;
      }
      return ExitCode.ok;
    }
  }
  return ApiOperationCommand;
}
