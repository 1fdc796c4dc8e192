import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { deferred, manualClock, recordingEmbedder, useMemoryFiles } from './helpers.js';
import { bulkInsertEmbedded } from '../../src/memory/bulk.js';
import type { Memory } from '../../src/memory/index.js';

const files = useMemoryFiles();

/** Three conversations about different things, one message a second. */
function seed(memory: Memory, clock: ReturnType<typeof manualClock>) {
  const pets = memory.conversations.create({ title: 'pets' });
  const work = memory.conversations.create({ title: 'work' });
  const current = memory.conversations.create({ title: 'now' });
  const say = (conversationId: string, role: 'user' | 'assistant', content: string) => {
    clock.advance();
    return memory.messages.append(conversationId, { role, content });
  };
  const m = {
    catName: say(pets.id, 'user', 'My cat is called Miso and she sleeps all day'),
    catAnswer: say(pets.id, 'assistant', 'Miso the cat sounds like a very relaxed cat indeed'),
    catFood: say(pets.id, 'user', 'Which food brand should I buy for a picky cat'),
    revenue: say(work.id, 'user', 'Quarterly revenue grew by four percent this year'),
    catAtWork: say(work.id, 'user', 'Someone brought a cat to the office today, chaos'),
    currentCat: say(current.id, 'user', 'Tell me again what my cat Miso likes to do'),
  };
  return { pets, work, current, m };
}

describe('searchMessages', () => {
  it('orders hits by cosine similarity, most similar first, each message once with its best chunk', async () => {
    const { memory, clock } = files.open();
    const { m } = seed(memory, clock);
    const hits = await memory.searchMessages('cat Miso', { minSimilarity: 0.1 });
    expect(hits.map((hit) => hit.messageId)).toEqual([m.currentCat.id, m.catName.id, m.catAtWork.id, m.catFood.id]);
    expect(hits.map((hit) => hit.similarity)).toEqual([...hits.map((hit) => hit.similarity)].sort((a, b) => b - a));
    for (const hit of hits) expect(hit.similarity).toBeGreaterThan(0.1);
    expect(hits[1]).toMatchObject({
      conversationId: m.catName.conversationId,
      role: 'user',
      content: 'My cat is called Miso and she sleeps all day',
      createdAt: '2026-03-01T12:00:01.000Z',
    });

    // A long message matched by several chunks is one hit.
    const pets = memory.conversations.create();
    const long = memory.messages.append(pets.id, { role: 'user', content: Array(60).fill('hamster wheel spinning').join(' ') });
    const longHits = await memory.searchMessages('hamster wheel', { minSimilarity: 0.5 });
    expect(longHits.map((hit) => hit.messageId)).toEqual([long.id]);
  });

  it('honours limit and minSimilarity (default 0.3)', async () => {
    const { memory, clock } = files.open();
    seed(memory, clock);
    expect(await memory.searchMessages('cat Miso', { minSimilarity: 0.1, limit: 2 })).toHaveLength(2);
    const all = await memory.searchMessages('cat Miso', { minSimilarity: 0 });
    const byDefault = await memory.searchMessages('cat Miso');
    expect(byDefault.length).toBeGreaterThan(0);
    expect(byDefault).toEqual(all.filter((hit) => hit.similarity >= 0.3));
    expect(await memory.searchMessages('cat Miso', { minSimilarity: 0.99 })).toEqual([]);
    expect(await memory.searchMessages('zebra crossing')).toEqual([]);
  });

  it('limits to 8 hits by default', async () => {
    const { memory } = files.open();
    const conversation = memory.conversations.create();
    for (let i = 0; i < 12; i++) memory.messages.append(conversation.id, { role: 'user', content: `the garden gnome number ${i} is here` });
    expect(await memory.searchMessages('garden gnome')).toHaveLength(8);
  });

  it('leaves out excludeConversationId, and no conversation without it', async () => {
    const { memory, clock } = files.open();
    const { current, pets, m } = seed(memory, clock);
    const everywhere = await memory.searchMessages('cat Miso');
    expect(everywhere.map((hit) => hit.messageId)).toContain(m.currentCat.id);
    const elsewhere = await memory.searchMessages('cat Miso', { excludeConversationId: current.id });
    expect(elsewhere.map((hit) => hit.messageId)).not.toContain(m.currentCat.id);
    expect(elsewhere.map((hit) => hit.messageId)).toContain(m.catName.id);
    const notPets = await memory.searchMessages('cat Miso', { excludeConversationId: pets.id });
    expect(notPets.every((hit) => hit.conversationId !== pets.id)).toBe(true);
    expect(await memory.searchMessages('cat Miso', { excludeConversationId: 'conv_unknown' })).toEqual(everywhere);
  });

  it('searches only user messages unless includeAssistant', async () => {
    const { memory, clock } = files.open();
    const { m } = seed(memory, clock);
    const userOnly = await memory.searchMessages('relaxed cat', { minSimilarity: 0.1 });
    expect(userOnly.length).toBeGreaterThan(0);
    expect(userOnly.every((hit) => hit.role === 'user')).toBe(true);
    const withAssistant = await memory.searchMessages('relaxed cat', { minSimilarity: 0.1, includeAssistant: true });
    expect(withAssistant[0]).toMatchObject({ messageId: m.catAnswer.id, role: 'assistant' });
  });

  it('sorts the same hits oldest first with sortBy chronological', async () => {
    const { memory, clock } = files.open();
    const { m } = seed(memory, clock);
    const bySimilarity = await memory.searchMessages('cat Miso', { minSimilarity: 0.1, limit: 3 });
    const chronological = await memory.searchMessages('cat Miso', { minSimilarity: 0.1, limit: 3, sortBy: 'chronological' });
    expect(chronological.map((hit) => hit.messageId)).toEqual([m.catName.id, m.catAtWork.id, m.currentCat.id]);
    expect(new Set(chronological.map((hit) => hit.messageId))).toEqual(new Set(bySimilarity.map((hit) => hit.messageId)));
    expect(chronological.map((hit) => hit.createdAt)).toEqual([...chronological.map((hit) => hit.createdAt)].sort());
  });

  it('embeds only user and assistant messages of at least 20 characters', async () => {
    const { memory, embedder } = files.open({ embedInBackground: false });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'system', content: 'You are a helpful assistant for the terminal' });
    memory.messages.append(conversation.id, { role: 'user', content: 'thanks!' });
    memory.messages.append(conversation.id, {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'search_memory', arguments: '{"query":"cats"}' } }],
    });
    memory.messages.append(conversation.id, { role: 'tool', toolCallId: 'call_1', content: '{"results":[{"content":"lots of text here"}]}' });
    memory.messages.append(conversation.id, { role: 'user', content: 'a message long enough to embed' });
    expect(memory.pendingCount()).toBe(1);
    expect(await memory.embedPending()).toBe(1);
    expect(embedder.texts()).toEqual(['a message long enough to embed']);
    expect(memory.messages.list(conversation.id).map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(memory.messages.list(conversation.id)[2]?.toolCalls?.[0]?.function.name).toBe('search_memory');
    expect(memory.messages.list(conversation.id)[3]?.toolCallId).toBe('call_1');
  });
});

describe('embedding in the background', () => {
  it('append returns at once, before any embedding has finished, and the message is already stored', async () => {
    const gate = deferred<void>();
    const embedder = recordingEmbedder();
    const { memory } = files.open({
      embed: async (texts, model) => {
        await gate.promise;
        return embedder.embed(texts, model);
      },
    });
    const conversation = memory.conversations.create();
    const message = memory.messages.append(conversation.id, { role: 'user', content: 'remember that the wifi password is on the fridge' });
    expect(message).toMatchObject({ conversationId: conversation.id, role: 'user', content: 'remember that the wifi password is on the fridge' });
    expect(memory.messages.list(conversation.id)).toEqual([message]);
    expect(memory.pendingCount()).toBe(1);
    await new Promise((resolve) => setImmediate(resolve)); // the background run has started and waits on the gate
    expect(memory.pendingCount()).toBe(1);
    gate.resolve();
    await memory.embedPending(); // waits for the background run
    expect(memory.pendingCount()).toBe(0);
    expect(embedder.calls).toHaveLength(1);
  });

  it('a search right after append embeds what is pending first and finds the message', async () => {
    const { memory, embedder } = files.open({ embedInBackground: false });
    const old = memory.conversations.create();
    memory.messages.append(old.id, { role: 'user', content: 'my favourite editor is helix with a dark theme' });
    const hits = await memory.searchMessages('favourite editor');
    expect(hits.map((hit) => hit.content)).toEqual(['my favourite editor is helix with a dark theme']);
    expect(embedder.texts()).toEqual(['my favourite editor is helix with a dark theme', 'favourite editor']);
  });

  it('embeds in batches, one run at a time', async () => {
    const { memory, embedder } = files.open({ embedInBackground: false, batchSize: 3 });
    const conversation = memory.conversations.create();
    for (let i = 0; i < 7; i++) memory.messages.append(conversation.id, { role: 'user', content: `message number ${i} with enough text` });
    const [a, b] = await Promise.all([memory.embedPending(), memory.embedPending()]);
    expect(a + b).toBe(7);
    expect(embedder.calls.map((call) => call.texts.length)).toEqual([3, 3, 1]);
  });

  it('keeps chunks pending when embedding fails, reports it, and retries on the next run', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const embedder = recordingEmbedder();
    const { memory } = files.open({
      onBackgroundError: (error) => errors.push(error),
      embed: async (texts, model) => {
        if (fail) throw new Error('embeddings are down');
        return embedder.embed(texts, model);
      },
    });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'the deploy key lives in the vault' });
    await expect(memory.embedPending()).rejects.toThrow('embeddings are down');
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.length).toBeGreaterThan(0);
    expect(memory.pendingCount()).toBe(1);
    fail = false;
    expect((await memory.searchMessages('deploy key')).map((hit) => hit.content)).toEqual(['the deploy key lives in the vault']);
  });

  it('rejects an embedder answer of the wrong shape, storing nothing', async () => {
    const { memory } = files.open({ embedInBackground: false, embed: async () => [[1, 0, 0]] });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'first message with some words' });
    memory.messages.append(conversation.id, { role: 'user', content: 'second message with some words' });
    await expect(memory.embedPending()).rejects.toThrow('gave 1 vectors for 2 texts');
    expect(memory.pendingCount()).toBe(2);
  });
});

describe('embedding models', () => {
  it('re-embeds everything after a model change and searches the new model only', async () => {
    const { memory, embedder } = files.open({ embedInBackground: false });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'the staging server runs on port 8443' });
    memory.messages.append(conversation.id, { role: 'user', content: 'lunch is at noon on fridays' });
    expect((await memory.searchMessages('staging server port'))[0]?.content).toBe('the staging server runs on port 8443');

    memory.setEmbeddingModel('other-model-32d'); // another vector space, of another size
    expect(memory.embeddingModel).toBe('other-model-32d');
    expect(memory.pendingCount()).toBe(2);
    const hits = await memory.searchMessages('staging server port');
    expect(hits.map((hit) => hit.content)).toEqual(['the staging server runs on port 8443']);
    expect(embedder.texts('other-model-32d').sort()).toEqual(
      ['lunch is at noon on fridays', 'staging server port', 'the staging server runs on port 8443'].sort(),
    );
    expect(memory.pendingCount()).toBe(0);

    // Back to the first model: its vectors were replaced, so everything is embedded again.
    memory.setEmbeddingModel('fake-embed');
    expect(memory.pendingCount()).toBe(2);
    expect((await memory.searchMessages('lunch fridays'))[0]?.content).toBe('lunch is at noon on fridays');
  });

  it('refuses vectors of a different length from the same model', async () => {
    let dims = 8;
    const { memory } = files.open({
      embedInBackground: false,
      embed: async (texts) => texts.map(() => Array.from({ length: dims }, (_, i) => i + 1)),
    });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'first message with some words' });
    await memory.embedPending();
    dims = 4;
    memory.messages.append(conversation.id, { role: 'user', content: 'second message with some words' });
    await expect(memory.embedPending()).rejects.toThrow('gave 4 dimensions where memory holds 8');
    await expect(memory.searchMessages('anything at all')).rejects.toThrow();
  });
});

describe('the memory file', () => {
  it('keeps conversations, messages, vectors and the vault across reopening', async () => {
    const first = files.open();
    const conversation = first.memory.conversations.create({ title: 'trip' });
    first.clock.advance();
    first.memory.messages.append(conversation.id, { role: 'user', content: 'we are flying to Lisbon in May' });
    const { entry } = first.memory.vault.save({ content: 'Prefers window seats on flights', scope: 'travel' });
    await first.memory.embedPending();
    first.memory.close();

    const second = files.open();
    expect(second.memory.conversations.list()).toEqual([{ ...conversation, updatedAt: '2026-03-01T12:00:01.000Z' }]);
    expect(second.memory.conversations.latest()?.id).toBe(conversation.id);
    expect(second.memory.messages.list(conversation.id).map((message) => message.content)).toEqual(['we are flying to Lisbon in May']);
    expect(second.memory.pendingCount()).toBe(0);
    expect((await second.memory.searchMessages('flying to Lisbon'))[0]?.content).toBe('we are flying to Lisbon in May');
    expect((await second.memory.vault.search('window seats'))[0]?.id).toBe(entry.id);
    expect(second.embedder.texts()).toEqual(['flying to Lisbon', 'window seats']); // nothing re-embedded
  });

  it('keeps an answer\'s cancelled mark; a file from before the mark (schema 2) gets it, unset, when opened', () => {
    const first = files.open();
    const conversation = first.memory.conversations.create();
    first.memory.messages.append(conversation.id, { role: 'user', content: 'tell me everything' });
    first.memory.messages.append(conversation.id, { role: 'assistant', content: 'partial answer', cancelled: true });
    first.memory.close();
    expect(files.open().memory.messages.list(conversation.id).map((m) => [m.content, m.cancelled])).toEqual([
      ['tell me everything', false],
      ['partial answer', true],
    ]);

    const old = new Database(files.file());
    old.exec('ALTER TABLE messages DROP COLUMN cancelled');
    old.pragma('user_version = 2');
    old.close();
    const reopened = files.open().memory;
    expect(reopened.messages.list(conversation.id).map((m) => m.cancelled)).toEqual([false, false]);
    reopened.messages.append(conversation.id, { role: 'assistant', content: 'cut short again', cancelled: true });
    expect(reopened.messages.list(conversation.id).at(-1)?.cancelled).toBe(true);
  });

  it('finds what another process has written and embedded since the vectors were loaded', async () => {
    const chat = files.open({ embedInBackground: false }).memory;
    const pipe = files.open({ embedInBackground: false }).memory;
    const earlier = chat.conversations.create();
    chat.messages.append(earlier.id, { role: 'user', content: 'the build server is called hopper' });
    expect(await chat.searchMessages('build server hopper')).toHaveLength(1); // vectors loaded

    // a pipe-mode run in another process: written, embedded, done
    const run = pipe.conversations.create();
    pipe.messages.append(run.id, { role: 'user', content: 'the backup server is called lovelace' });
    const { entry } = pipe.vault.save({ content: 'Server names come from computer scientists' });
    await pipe.embedPending();
    expect(chat.pendingCount()).toBe(0);
    expect((await chat.searchMessages('backup server lovelace')).map((hit) => hit.conversationId)).toEqual([run.id]);
    expect((await chat.vault.search('server names'))[0]?.id).toBe(entry.id);

    // the other process updates, then deletes, the vault entry
    pipe.vault.save({ id: entry.id, content: 'Printer names come from rivers' });
    await pipe.embedPending();
    expect(await chat.vault.search('server names computer scientists', { minSimilarity: 0.3 })).toEqual([]);
    expect((await chat.vault.search('printer names rivers'))[0]?.content).toBe('Printer names come from rivers');
    pipe.vault.delete(entry.id);
    expect(await chat.vault.search('printer names rivers')).toEqual([]);
  });

  it('keeps loaded vectors in sync with what this process embeds later', async () => {
    const { memory } = files.open({ embedInBackground: false });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'first note about the garden shed' });
    expect(await memory.searchMessages('garden shed')).toHaveLength(1);
    memory.messages.append(conversation.id, { role: 'user', content: 'second note about the garden shed roof' });
    expect((await memory.searchMessages('garden shed roof')).map((hit) => hit.content)).toEqual([
      'second note about the garden shed roof',
      'first note about the garden shed',
    ]);
  });

  it('searches vectors written by the bulk path (benchmarks, imports) like any others', async () => {
    const axis = (i: number) => Float32Array.from({ length: 8 }, (_, j) => (j === i ? 2 : 0)); // normalised on the way in
    const [first, second] = bulkInsertEmbedded(files.file(), 'axes-8d', [
      [{ role: 'user', content: 'about axis one', vectors: [axis(1), axis(2)] }],
      [{ role: 'user', content: 'about axis three', vectors: [axis(3)] }],
    ]);
    const { memory } = files.open({ embeddingModel: 'axes-8d', embed: async () => [Array.from(axis(2))] });
    expect(memory.pendingCount()).toBe(0);
    const hits = await memory.searchMessages('anything', { minSimilarity: 0 });
    expect(hits.map((hit) => [hit.conversationId, hit.content, hit.similarity])).toEqual([
      [first, 'about axis one', 1],
      [second, 'about axis three', 0],
    ]);
  });

  it('commits each append at once: another connection sees it before the memory is closed', async () => {
    const { memory } = files.open({ embedInBackground: false });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'written the moment it was said' });
    const reader = files.open({ embedInBackground: false }).memory;
    expect(reader.messages.list(conversation.id).map((message) => message.content)).toEqual(['written the moment it was said']);
  });

  it('lists conversations most recently active first, and refuses messages for an unknown conversation', () => {
    const { memory, clock } = files.open({ embedInBackground: false });
    const a = memory.conversations.create();
    clock.advance();
    const b = memory.conversations.create();
    clock.advance();
    memory.messages.append(a.id, { role: 'user', content: 'back to the first one' });
    expect(memory.conversations.list().map((c) => c.id)).toEqual([a.id, b.id]);
    expect(memory.conversations.list(1).map((c) => c.id)).toEqual([a.id]);
    expect(memory.conversations.latest()?.id).toBe(a.id);
    memory.conversations.setTitle(b.id, 'renamed');
    expect(memory.conversations.get(b.id)?.title).toBe('renamed');
    expect(memory.conversations.get('conv_missing')).toBeNull();
    expect(() => memory.messages.append('conv_missing', { role: 'user', content: 'hello there' })).toThrow('no conversation');
  });
});
