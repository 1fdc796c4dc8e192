import { Command, Option } from 'clipanion';
import { existsSync } from 'node:fs';
import type { SvcContext } from './base-command.js';
import { svcHome } from './connection.js';
import { ExitCode } from './exit-codes.js';
import { loadServer } from './lazy.js';
import { databaseLocation, locationText } from './database-option.js';
import { isTty } from './output.js';

/**
 * What the operator runs where the server's database is (`svc admin …`): no API URL, no key —
 * whoever can open the database file is the operator.
 */
export abstract class OperatorCommand extends Command<SvcContext> {
  db = Option.String('--db', {
    description: 'The server database, as given to svc serve: a SQLite file or a postgres:// URL (default SVC_DATABASE_URL, else ~/.svc/server.db)',
  });

  protected get isTerminal(): boolean {
    return isTty(this.context.stdout);
  }

  /**
   * The database (a file path or a PostgreSQL URL), or null (with a line on stderr) when there is
   * none to act on. A URL is checked when opened: the server's errors say what is wrong with it.
   */
  protected existingDatabase(): string | null {
    const location = databaseLocation(this.db, this.context.env, svcHome(this.context.env));
    if ('refusal' in location) {
      this.context.stderr.write(location.refusal);
      return null;
    }
    if (location.kind === 'url' || existsSync(location.path)) return locationText(location);
    this.context.stderr.write(`svc: no database at ${location.path}: run \`svc serve\` once to create it, or give --db.\n`);
    return null;
  }

  protected server() {
    return loadServer();
  }

  /** A database that cannot be opened (newer schema, not SQLite) is one line, never a stack trace. */
  protected failed(error: unknown): number {
    this.context.stderr.write(`svc: ${(error as Error).message}\n`);
    return ExitCode.apiError;
  }
}
