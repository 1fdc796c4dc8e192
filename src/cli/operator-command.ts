import { Command, Option } from 'clipanion';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcContext } from './base-command.js';
import { svcHome } from './connection.js';
import { ExitCode } from './exit-codes.js';
import { loadServer } from './lazy.js';
import { databaseUrlRefusal } from './database-option.js';
import { isTty } from './output.js';

/**
 * What the operator runs where the server's database is (`svc admin …`): no API URL, no key —
 * whoever can open the database file is the operator.
 */
export abstract class OperatorCommand extends Command<SvcContext> {
  db = Option.String('--db', { description: 'The server database file, as given to svc serve (default ~/.svc/server.db)' });

  protected get isTerminal(): boolean {
    return isTty(this.context.stdout);
  }

  /** The database path, or null (with a line on stderr) when there is none to act on. */
  protected existingDatabase(): string | null {
    const refusal = databaseUrlRefusal(this.db);
    if (refusal) {
      this.context.stderr.write(refusal);
      return null;
    }
    const path = this.db ?? join(svcHome(this.context.env), 'server.db');
    if (existsSync(path)) return path;
    this.context.stderr.write(`svc: no database at ${path}: run \`svc serve\` once to create it, or give --db.\n`);
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
