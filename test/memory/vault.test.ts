import { describe, expect, it } from 'vitest';
import { useMemoryFiles } from './helpers.js';

const files = useMemoryFiles();

describe('vault', () => {
  it('creates entries with a vlt_ id and the private scope by default', () => {
    const { memory, clock } = files.open();
    const { action, entry } = memory.vault.save({ content: '  Works mostly in TypeScript and Rust  ' });
    expect(action).toBe('new');
    expect(entry).toEqual({
      id: expect.stringMatching(/^vlt_[0-9a-f]{16}$/),
      scope: 'private',
      content: 'Works mostly in TypeScript and Rust',
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
    clock.advance();
    const other = memory.vault.save({ content: 'Team standup is at 9:30', scope: 'work' }).entry;
    expect(other.id).not.toBe(entry.id);
    expect(memory.vault.get(entry.id)).toEqual(entry);
    expect(memory.vault.list().map((e) => e.id)).toEqual([other.id, entry.id]);
    expect(memory.vault.list({ scopes: ['work'] }).map((e) => e.id)).toEqual([other.id]);
  });

  it('updates an entry in place: new content, same id, scope kept unless given', async () => {
    const { memory, clock } = files.open();
    const { entry } = memory.vault.save({ content: 'Favourite language: Go', scope: 'profile' });
    expect((await memory.vault.search('Go', { minSimilarity: 0.3 }))[0]?.id).toBe(entry.id); // vectors now loaded
    clock.advance();
    const updated = memory.vault.save({ id: entry.id, content: 'Favourite language: Zig' });
    expect(updated).toEqual({
      action: 'update',
      entry: { ...entry, content: 'Favourite language: Zig', updatedAt: '2026-03-01T12:00:01.000Z' },
    });
    expect(memory.vault.list()).toHaveLength(1);
    expect(memory.vault.save({ id: entry.id, content: 'Favourite language: Zig', scope: 'private' }).entry.scope).toBe('private');
    // the old text is no longer searchable, the new one is
    expect(await memory.vault.search('Go', { minSimilarity: 0.3 })).toEqual([]);
    expect((await memory.vault.search('language Zig'))[0]).toMatchObject({ id: entry.id, content: 'Favourite language: Zig' });
    expect(() => memory.vault.save({ id: 'vlt_0000', content: 'x' })).toThrow('no vault entry vlt_0000');
    expect(() => memory.vault.save({ content: '   ' })).toThrow('needs content');
  });

  it('soft-deletes: a deleted entry is gone from get, list and search, and cannot be updated', async () => {
    const { memory } = files.open();
    const keep = memory.vault.save({ content: 'Allergic to peanuts' }).entry;
    const drop = memory.vault.save({ content: 'Allergic to penicillin' }).entry;
    expect((await memory.vault.search('allergic')).map((hit) => hit.id).sort()).toEqual([keep.id, drop.id].sort());
    expect(memory.vault.delete(drop.id)).toBe(true);
    expect(memory.vault.delete(drop.id)).toBe(false);
    expect(memory.vault.get(drop.id)).toBeNull();
    expect(memory.vault.list().map((e) => e.id)).toEqual([keep.id]);
    expect((await memory.vault.search('allergic penicillin')).map((hit) => hit.id)).toEqual([keep.id]);
    expect(() => memory.vault.save({ id: drop.id, content: 'back again' })).toThrow('no vault entry');
  });

  it('deletes softly: the row stays in the file', async () => {
    const { memory } = files.open();
    const entry = memory.vault.save({ content: 'Lives in Porto' }).entry;
    memory.vault.delete(entry.id);
    memory.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(files.file(), { readonly: true });
    expect(db.prepare('SELECT id, deleted_at FROM vault_entries').all()).toEqual([{ id: entry.id, deleted_at: '2026-03-01T12:00:00.000Z' }]);
    db.close();
  });

  it('searches with limit 5 and minSimilarity 0.1 by default, filtered by scopes', async () => {
    const { memory } = files.open();
    for (let i = 0; i < 7; i++) memory.vault.save({ content: `coffee note ${i}`, scope: i % 2 === 0 ? 'home' : 'work' });
    memory.vault.save({ content: 'bicycle repair shop on Main street' });
    const hits = await memory.vault.search('coffee');
    expect(hits).toHaveLength(5);
    for (const hit of hits) expect(hit.similarity).toBeGreaterThanOrEqual(0.1);
    expect(hits.every((hit) => hit.content.startsWith('coffee'))).toBe(true);
    const work = await memory.vault.search('coffee', { scopes: ['work'], limit: 10 });
    expect(work).toHaveLength(3);
    expect(work.every((hit) => hit.scope === 'work')).toBe(true);
    expect(await memory.vault.search('coffee', { scopes: ['nowhere'] })).toEqual([]);
    expect(await memory.vault.search('coffee', { minSimilarity: 0.9 })).toEqual([]);
    expect((await memory.vault.search('bicycle repair'))[0]?.content).toBe('bicycle repair shop on Main street');
  });

  it('embeds short vault entries too, and re-embeds them after a model change', async () => {
    const { memory, embedder } = files.open({ embedInBackground: false });
    const entry = memory.vault.save({ content: 'Name: Bo' }).entry;
    expect((await memory.vault.search('name'))[0]?.id).toBe(entry.id);
    memory.setEmbeddingModel('next-model-64d');
    expect(memory.pendingCount()).toBe(1);
    expect((await memory.vault.search('name'))[0]?.id).toBe(entry.id);
    expect(embedder.texts('next-model-64d')).toEqual(['Name: Bo', 'name']);
  });
});
