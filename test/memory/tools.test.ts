import { describe, expect, it } from 'vitest';
import { useMemoryFiles } from './helpers.js';
import { memoryTools, type Memory, type Tool, type VaultSaveRequest } from '../../src/memory/index.js';

const files = useMemoryFiles();

function toolsFor(memory: Memory, current: string | null, answers: boolean[] = []) {
  const requests: VaultSaveRequest[] = [];
  const tools = memoryTools(memory, {
    currentConversationId: () => current,
    confirmSave: async (request) => {
      requests.push(request);
      return answers.shift() ?? true;
    },
  });
  const byName = (name: string) => tools.find((tool) => tool.definition.function.name === name) as Tool;
  const run = async (name: string, args: unknown) => JSON.parse(await byName(name).run(args));
  return { tools, byName, run, requests };
}

describe('memory tools', () => {
  it('are OpenAI function tools with JSON Schema parameters and the specified defaults', () => {
    const { memory } = files.open();
    const { tools } = toolsFor(memory, null);
    expect(tools.map((tool) => [tool.definition.type, tool.definition.function.name, tool.writes])).toEqual([
      ['function', 'search_memory', false],
      ['function', 'memory_vault_search', false],
      ['function', 'memory_vault_save', true],
    ]);
    const [search, vaultSearch, vaultSave] = tools.map((tool) => tool.definition.function.parameters) as Record<string, any>[];
    expect(search?.required).toEqual(['query']);
    expect(search?.properties).toMatchObject({
      limit: { type: 'integer', default: 8 },
      minSimilarity: { type: 'number', minimum: 0, maximum: 1, default: 0.3 },
      includeAssistant: { type: 'boolean', default: false },
      sortBy: { enum: ['similarity', 'chronological'], default: 'similarity' },
    });
    expect(Object.keys(search?.properties)).toContain('excludeConversationId');
    expect(vaultSearch?.properties).toMatchObject({ limit: { default: 5 }, minSimilarity: { default: 0.1 }, scopes: { type: 'array' } });
    expect(vaultSave?.required).toEqual(['content']);
    expect(Object.keys(vaultSave?.properties)).toEqual(['content', 'id', 'scope']);
    for (const tool of tools) expect(tool.definition.function.description.length).toBeGreaterThan(40);
  });

  it('search_memory leaves the current conversation out by default', async () => {
    const { memory } = files.open();
    const earlier = memory.conversations.create();
    const current = memory.conversations.create();
    memory.messages.append(earlier.id, { role: 'user', content: 'my bike is a green gravel bike' });
    memory.messages.append(current.id, { role: 'user', content: 'what colour is my gravel bike' });
    const { run } = toolsFor(memory, current.id);
    const result = await run('search_memory', { query: 'gravel bike' });
    expect(result.results).toEqual([
      { conversationId: earlier.id, role: 'user', createdAt: expect.any(String), similarity: expect.any(Number), content: 'my bike is a green gravel bike' },
    ]);
    const everywhere = await run('search_memory', { query: 'gravel bike', excludeConversationId: null });
    expect(everywhere.results).toHaveLength(2);
    const notEarlier = await run('search_memory', { query: 'gravel bike', excludeConversationId: earlier.id });
    expect(notEarlier.results.map((hit: { conversationId: string }) => hit.conversationId)).toEqual([current.id]);
    // no conversation in progress: nothing is left out
    expect((await toolsFor(memory, null).run('search_memory', { query: 'gravel bike' })).results).toHaveLength(2);
  });

  it('search_memory passes its options on', async () => {
    const { memory, clock } = files.open();
    const conversation = memory.conversations.create();
    for (const content of ['kettle descaling every month', 'the kettle is broken again', 'bought a new kettle today']) {
      clock.advance();
      memory.messages.append(conversation.id, { role: 'user', content });
    }
    memory.messages.append(conversation.id, { role: 'assistant', content: 'descaling the kettle with vinegar works' });
    const { run } = toolsFor(memory, null);
    const chronological = await run('search_memory', { query: 'kettle', minSimilarity: 0.2, sortBy: 'chronological', limit: 10 });
    expect(chronological.results.map((hit: { content: string }) => hit.content)).toEqual([
      'kettle descaling every month',
      'the kettle is broken again',
      'bought a new kettle today',
    ]);
    const withAssistant = await run('search_memory', { query: 'kettle vinegar', includeAssistant: true, limit: 1 });
    expect(withAssistant.results).toMatchObject([{ role: 'assistant' }]);
  });

  it('gives bad arguments back as error results the model can read', async () => {
    const { memory } = files.open();
    const { byName, run, requests } = toolsFor(memory, null);
    const cases: [string, unknown, string][] = [
      ['search_memory', {}, 'query'],
      ['search_memory', { query: '   ' }, 'query'],
      ['search_memory', { query: 'x', limit: 0 }, 'limit'],
      ['search_memory', { query: 'x', limit: 2.5 }, 'limit'],
      ['search_memory', { query: 'x', minSimilarity: 1.5 }, 'minSimilarity'],
      ['search_memory', { query: 'x', sortBy: 'newest' }, 'sortBy'],
      ['search_memory', { query: 'x', includeAssistant: 'yes' }, 'includeAssistant'],
      ['memory_vault_search', { query: 'x', scopes: 'work' }, 'scopes'],
      ['memory_vault_search', { query: 'x', scopes: ['has space'] }, 'scopes.0'],
      ['memory_vault_save', { content: '' }, 'content'],
      ['memory_vault_save', { content: 'x', id: 'conv_1' }, 'id'],
      ['memory_vault_save', { content: 'x', scope: '' }, 'scope'],
      ['memory_vault_save', 'not json', ''],
      ['memory_vault_save', 42, ''],
    ];
    for (const [name, args, path] of cases) {
      const result = await run(name, args);
      expect(result.error.code, `${name} ${JSON.stringify(args)}`).toBe('invalid_arguments');
      expect(typeof result.error.message).toBe('string');
      if (path) expect(result.error.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    }
    // arguments as JSON text, as they arrive from the model
    expect(JSON.parse(await byName('memory_vault_search').run('{"query":"anything"}'))).toEqual({ results: [] });
    expect(requests).toEqual([]);
    expect(memory.vault.list()).toEqual([]);
  });

  it('gives failures back as error results too', async () => {
    const { memory } = files.open({
      embed: async () => {
        throw new Error('the embeddings endpoint is unreachable');
      },
    });
    const { run } = toolsFor(memory, null);
    expect(await run('search_memory', { query: 'anything' })).toEqual({
      error: { code: 'failed', message: 'the embeddings endpoint is unreachable' },
    });
  });

  it('memory_vault_save asks before creating, and saves when allowed', async () => {
    const { memory } = files.open();
    const { run, requests } = toolsFor(memory, null, [true]);
    const result = await run('memory_vault_save', { content: 'Prefers tabs over spaces', scope: 'coding' });
    expect(requests).toEqual([{ action: 'new', content: 'Prefers tabs over spaces', scope: 'coding' }]);
    expect(result).toMatchObject({ saved: true, action: 'new', entry: { scope: 'coding', content: 'Prefers tabs over spaces' } });
    expect(memory.vault.get(result.entry.id)?.content).toBe('Prefers tabs over spaces');
  });

  it('memory_vault_save changes nothing when the user declines', async () => {
    const { memory } = files.open();
    const { run, requests } = toolsFor(memory, null, [false, false]);
    const declined = await run('memory_vault_save', { content: 'Has two sisters' });
    expect(declined).toEqual({ saved: false, cancelled: true, message: expect.stringContaining('declined') });
    expect(memory.vault.list()).toEqual([]);

    const entry = memory.vault.save({ content: 'Lives in Oslo' }).entry;
    const declinedUpdate = await run('memory_vault_save', { id: entry.id, content: 'Lives in Bergen' });
    expect(declinedUpdate.cancelled).toBe(true);
    expect(requests[1]).toEqual({ action: 'update', content: 'Lives in Bergen', previousContent: 'Lives in Oslo', scope: 'private' });
    expect(memory.vault.get(entry.id)).toEqual(entry);
  });

  it('memory_vault_save updates an entry by id after confirmation, showing the previous content', async () => {
    const { memory } = files.open();
    const entry = memory.vault.save({ content: 'Runs 10 km on Sundays', scope: 'health' }).entry;
    const { run, requests } = toolsFor(memory, null, [true]);
    const result = await run('memory_vault_save', { id: entry.id, content: 'Runs 15 km on Sundays' });
    expect(requests).toEqual([{ action: 'update', content: 'Runs 15 km on Sundays', previousContent: 'Runs 10 km on Sundays', scope: 'health' }]);
    expect(result).toMatchObject({ saved: true, action: 'update', entry: { id: entry.id, scope: 'health', content: 'Runs 15 km on Sundays' } });
    expect(memory.vault.list().map((e) => e.content)).toEqual(['Runs 15 km on Sundays']);
    const search = await run('memory_vault_search', { query: 'runs Sundays', scopes: ['health'] });
    expect(search.results).toMatchObject([{ id: entry.id, scope: 'health', content: 'Runs 15 km on Sundays' }]);

    const missing = await run('memory_vault_save', { id: 'vlt_ffff', content: 'x' });
    expect(missing.error.code).toBe('not_found');
    expect(requests).toHaveLength(1);
  });

  it('memory_vault_save without a confirmation callback saves (the host approves writes)', async () => {
    const { memory } = files.open();
    const [, , save] = memoryTools(memory, { currentConversationId: () => null });
    const result = JSON.parse(await (save as Tool).run({ content: 'Uses a split keyboard' }));
    expect(result).toMatchObject({ saved: true, action: 'new' });
    expect((save as Tool).writes).toBe(true);
  });
});
