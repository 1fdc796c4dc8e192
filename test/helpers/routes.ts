import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A providers file with these contents (pretty-printed, one value a line, as an operator writes it); its path. */
export function writeProvidersFile(contents: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-routes-')), 'providers.json');
  writeFileSync(file, JSON.stringify(contents, null, 2));
  return file;
}
