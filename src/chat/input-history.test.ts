import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileHistory } from './input-history.js';

describe('the input history file', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-history-'));
    return join(dir, 'chat_history.jsonl');
  };
  const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;

  it('appends, keeps the last 1000 once it holds 2000, and is readable by its owner only', () => {
    const path = file();
    const history = fileHistory(path);
    expect(history.entries()).toEqual([]);
    for (let i = 0; i < 2000; i++) history.add(`question ${i}`);
    expect(lines(path)).toBe(2000);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    history.add('question 2000');
    expect(lines(path)).toBe(1000);
    expect(history.entries()).toEqual(Array.from({ length: 1000 }, (_, i) => `question ${1001 + i}`));
  });

  it('a chat that trims keeps what another chat added meanwhile; a damaged line is skipped', () => {
    const path = file();
    const mine = fileHistory(path);
    const theirs = fileHistory(path);
    mine.entries();
    for (let i = 0; i < 1999; i++) theirs.add(`theirs ${i}`);
    mine.add('mine');
    appendFileSync(path, '{"not a string"\n');
    theirs.add('theirs 1999');
    theirs.add('theirs 2000');
    expect(lines(path)).toBe(1000);
    const kept = mine.entries();
    expect(kept).toContain('mine');
    expect(kept.at(-1)).toBe('theirs 2000');
    expect(kept).toHaveLength(1000);
  });
});
