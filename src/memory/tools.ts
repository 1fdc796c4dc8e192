import { z } from 'zod';
import { toJsonSchema, type JsonSchema } from '../contract/json-schema.js';
import { DEFAULT_SCOPE, MESSAGE_SEARCH_DEFAULTS, VAULT_SEARCH_DEFAULTS, type Memory } from './memory.js';

/** A client-side tool: its OpenAI function definition, whether it writes, and how it runs. */
export interface Tool {
  definition: { type: 'function'; function: { name: string; description: string; parameters: JsonSchema } };
  /** True when running it changes something (hosts ask for approval before such tools run). */
  writes: boolean;
  /** Runs with the model's arguments (an object or its JSON text); resolves to JSON text for the model, never rejects. */
  run(args: unknown): Promise<string>;
}

/** What a `memory_vault_save` confirmation is asked about. */
export interface VaultSaveRequest {
  action: 'new' | 'update';
  content: string;
  /** The content being replaced, for an update. */
  previousContent?: string;
  /** The scope the entry will have. */
  scope: string;
}

export interface MemoryToolOptions {
  /** The conversation in progress: `search_memory` leaves it out unless told otherwise. */
  currentConversationId: () => string | null;
  /**
   * Asked before every vault save: true to proceed, false to cancel. Without it saves are not
   * confirmed here, and the host approves them through its tool-call handler (`writes: true`).
   */
  confirmSave?: (request: VaultSaveRequest) => Promise<boolean>;
}

export const MEMORY_TOOL_NAMES = {
  searchMemory: 'search_memory',
  vaultSearch: 'memory_vault_search',
  vaultSave: 'memory_vault_save',
} as const;

const Scope = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1–64 letters, digits or _ . : -')
  .describe('A scope name, e.g. private, work, project:svc');

/** The fields every search tool has, with its defaults. */
const searchFields = (defaults: { limit: number; minSimilarity: number }) => ({
  query: z.string().trim().min(1).max(2000).describe('What to look for, in natural language'),
  limit: z.number().int().min(1).max(50).default(defaults.limit).describe('Most results'),
  minSimilarity: z.number().min(0).max(1).default(defaults.minSimilarity).describe('Lowest cosine similarity of a result, 0 to 1'),
});

const SearchMemoryArgs = z.object({
  ...searchFields(MESSAGE_SEARCH_DEFAULTS),
  excludeConversationId: z
    .string()
    .min(1)
    .nullable()
    .optional()
    .describe('A conversation to leave out; by default the current one; null searches every conversation'),
  includeAssistant: z.boolean().default(false).describe('Search assistant messages too (by default only user messages)'),
  sortBy: z
    .enum(['similarity', 'chronological'])
    .default('similarity')
    .describe('similarity: most relevant first; chronological: the same results, oldest first'),
});

const VaultSearchArgs = z.object({
  ...searchFields(VAULT_SEARCH_DEFAULTS),
  scopes: z.array(Scope).min(1).optional().describe('Only entries in these scopes'),
});

const VaultSaveArgs = z.object({
  content: z.string().trim().min(1).max(8000).describe('The whole entry: everything worth remembering about one topic'),
  id: z
    .string()
    .regex(/^vlt_[A-Za-z0-9]+$/, 'must be a vault entry id (vlt_…)')
    .optional()
    .describe('The entry to update (from memory_vault_search); omit to create a new entry'),
  scope: Scope.optional().describe(`The entry's scope (a new entry gets ${DEFAULT_SCOPE})`),
});

/** What a search tool gives the model: the named fields of each hit, the similarity to 3 decimals. */
function resultsOf<H extends { similarity: number }>(hits: H[], keys: (keyof H & string)[]) {
  const round = (similarity: number) => Math.round(similarity * 1000) / 1000;
  return { results: hits.map((hit) => Object.fromEntries(keys.map((key) => [key, key === 'similarity' ? round(hit.similarity) : hit[key]]))) };
}
const errorResult = (code: string, message: string, extra: object = {}) => JSON.stringify({ error: { code, message, ...extra } });

/** A tool whose arguments are checked against a zod schema before `handle` sees them. */
function defineTool<S extends z.ZodType>(
  name: string,
  description: string,
  schema: S,
  writes: boolean,
  handle: (args: z.output<S>) => Promise<unknown>,
): Tool {
  return {
    definition: { type: 'function', function: { name, description, parameters: toJsonSchema(schema, 'input') } },
    writes,
    async run(raw) {
      let input = raw;
      if (typeof raw === 'string') {
        try {
          input = raw.trim() === '' ? {} : JSON.parse(raw);
        } catch {
          return errorResult('invalid_arguments', 'the arguments are not valid JSON');
        }
      }
      const parsed = schema.safeParse(input ?? {});
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
        const message = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
        return errorResult('invalid_arguments', message, { issues });
      }
      try {
        return JSON.stringify(await handle(parsed.data));
      } catch (error) {
        return errorResult('failed', error instanceof Error ? error.message : String(error));
      }
    },
  };
}

/** The memory tools for a chat: `search_memory`, `memory_vault_search` and `memory_vault_save`. */
export function memoryTools(memory: Memory, options: MemoryToolOptions): Tool[] {
  const searchMemory = defineTool(
    MEMORY_TOOL_NAMES.searchMemory,
    'Search earlier conversations with the user by meaning. Use it when the user refers to something ' +
      'discussed before, or when earlier context would help. Returns matching messages with their ' +
      'conversation, role, time and cosine similarity.',
    SearchMemoryArgs,
    false,
    async ({ query, excludeConversationId, ...rest }) => {
      const excluded = excludeConversationId === undefined ? options.currentConversationId() : excludeConversationId;
      const hits = await memory.searchMessages(query, { ...rest, excludeConversationId: excluded });
      return resultsOf(hits, ['conversationId', 'role', 'createdAt', 'similarity', 'content']);
    },
  );

  const vaultSearch = defineTool(
    MEMORY_TOOL_NAMES.vaultSearch,
    'Search the memory vault: lasting notes about the user (preferences, facts, projects), one entry ' +
      'per topic. Search before saving, to update an existing entry instead of adding a second one.',
    VaultSearchArgs,
    false,
    async ({ query, ...rest }) => resultsOf(await memory.vault.search(query, rest), ['id', 'scope', 'updatedAt', 'similarity', 'content']),
  );

  const vaultSave = defineTool(
    MEMORY_TOOL_NAMES.vaultSave,
    'Save a lasting note about the user in the memory vault, one entry per topic. To change what an ' +
      'entry says, pass its id and the whole new content (it replaces the old). The user confirms every save.',
    VaultSaveArgs,
    true,
    async (args) => {
      const previous = args.id === undefined ? null : memory.vault.get(args.id);
      if (args.id !== undefined && !previous) {
        return { error: { code: 'not_found', message: `no vault entry ${args.id}; omit id to create a new entry` } };
      }
      const request: VaultSaveRequest = previous
        ? { action: 'update', content: args.content, previousContent: previous.content, scope: args.scope ?? previous.scope }
        : { action: 'new', content: args.content, scope: args.scope ?? DEFAULT_SCOPE };
      if (options.confirmSave && !(await options.confirmSave(request))) {
        return { saved: false, cancelled: true, message: 'The user declined this save; nothing was changed.' };
      }
      const { action, entry } = memory.vault.save({ content: args.content, id: args.id, scope: args.scope });
      return { saved: true, action, entry: { id: entry.id, scope: entry.scope, updatedAt: entry.updatedAt, content: entry.content } };
    },
  );

  return [searchMemory, vaultSearch, vaultSave];
}
