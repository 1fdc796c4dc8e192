import { Option } from 'clipanion';
import { apiErrorFrom, parseJsonAnswer } from '../client/errors.js';
import { exchange, type Exchange } from '../client/exchange.js';
import type { TransportRequest } from '../client/transport.js';
import { SvcCommand } from './base-command.js';
import { maskKey } from './connection.js';
import { ExitCode } from './exit-codes.js';
import { isTty, writeJson } from './output.js';

/** Request headers that carry a secret: `--verbose` shows enough of them to recognise, never to use. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization']);

const redacted = (name: string, value: string) => {
  if (!SECRET_HEADERS.has(name.toLowerCase())) return value;
  const [scheme, token] = value.includes(' ') ? value.split(/ (.*)/s) : ['', value];
  return `${scheme ? `${scheme} ` : ''}${maskKey(token ?? '')}`;
};

export const INCLUDE_DESCRIPTION = 'Print the status line and headers (request id included) before the body';

/**
 * What every `svc api` command prints with, as `gh api` does: `--jq` filters the JSON answer
 * through jq, `-i` puts the status line and headers (the request id among them) before the body,
 * `--verbose` shows the request and the answer's head on stderr.
 */
export abstract class ApiOutputCommand extends SvcCommand {
  jq = Option.String('-q,--jq', { description: 'Filter the JSON answer with a jq expression (strings print raw)' });
  include = Option.Boolean('-i,--include', false, { description: INCLUDE_DESCRIPTION });
  verbose = Option.Boolean('--verbose', false, { description: 'Show the request and the answer (the key redacted) on stderr' });

  /** Whether the answer's head must be seen, so the call goes through `send` rather than the typed client. */
  protected get showsHead(): boolean {
    return this.include || this.verbose;
  }

  /** Prints one JSON value (as JSON text or a value), through `--jq` when given. */
  protected async emit(value: unknown, jsonText = JSON.stringify(value)): Promise<number> {
    const { stdout, stderr, env } = this.context;
    if (this.jq === undefined) {
      writeJson(stdout, value, env);
      return ExitCode.ok;
    }
    const { runJq } = await import('./jq.js');
    const result = await runJq(jsonText ?? 'null', this.jq, { pretty: isTty(stdout) });
    if (!result.ok) {
      stderr.write(`svc: --jq: ${result.message.replace(/\n/g, '\n  ')}\n`);
      return result.badExpression ? ExitCode.usage : ExitCode.apiError;
    }
    stdout.write(result.output);
    return ExitCode.ok;
  }

  /**
   * Sends one request and prints its answer. A failure status becomes the API error it is (the
   * caller reports it); a success body that is not JSON is printed as it came, unless the caller
   * expects JSON (an operation of the contract), when it is an `invalid_response`.
   */
  protected async send(request: TransportRequest, options: { expectJson: boolean }): Promise<number> {
    if (this.verbose) this.showRequest(request);
    const answer = await exchange(request);
    if (this.verbose) this.context.stderr.write(`${head(answer, '< ')}<\n`);
    if (this.include) this.context.stdout.write(`${head(answer, '')}\n`);
    if (answer.status >= 400) throw apiErrorFrom(answer.status, answer.text, answer.requestId);
    if (answer.text === '') return ExitCode.ok;
    if (options.expectJson) return this.emit(parseJsonAnswer(request.url.origin, answer.status, answer.text), answer.text);
    let value: unknown;
    try {
      value = JSON.parse(answer.text);
    } catch {
      this.context.stdout.write(answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`);
      return ExitCode.ok;
    }
    return this.emit(value, answer.text);
  }

  private showRequest(request: TransportRequest): void {
    const lines = [`> ${request.method} ${request.url.pathname}${request.url.search} HTTP/1.1`, `> host: ${request.url.host}`];
    for (const [name, value] of Object.entries(request.headers)) lines.push(`> ${name}: ${redacted(name, value)}`);
    lines.push('>');
    if (request.body !== undefined) lines.push(request.body);
    this.context.stderr.write(`${lines.join('\n')}\n`);
  }
}

/** `HTTP/1.1 200 OK` and the headers, a line each, each line after `prefix`. */
function head(answer: Exchange, prefix: string): string {
  const lines = [`HTTP/${answer.httpVersion} ${answer.status} ${answer.statusText}`, ...answer.headers.map(([name, value]) => `${name}: ${value}`)];
  return lines.map((line) => `${prefix}${line}\n`).join('');
}
