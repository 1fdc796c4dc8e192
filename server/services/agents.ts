import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { notFound } from '../errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { IMAGE_TOOL_NAME } from './tool-catalog.js';

/** One agent: a named system prompt with a default model and the tools it is meant to use. */
export const AgentDefinition = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1 to 64 of a-z, 0-9, _ and -, starting with a letter or digit'),
  name: z.string().min(1).max(100),
  description: z.string().max(1000),
  default_model: z.string().min(1),
  system_prompt: z.string().max(50_000),
  tools: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a function tool name')).default([]),
});
export type AgentDefinition = z.output<typeof AgentDefinition>;

/**
 * The agents file (`SVC_AGENTS`): `{"agents": [<agent>, …]}`. Its agents are added to the
 * built-in ones; one with a built-in id replaces that agent.
 */
export const AgentsFile = z.strictObject({ agents: z.array(AgentDefinition) });

/** The agents shipped with the server. */
export const builtInAgents: AgentDefinition[] = [
  {
    id: 'assistant',
    name: 'Assistant',
    description: 'A general-purpose assistant.',
    default_model: 'local/echo',
    system_prompt: 'You are a helpful assistant. Answer clearly and concisely.',
    tools: [],
  },
  {
    id: 'researcher',
    name: 'Researcher',
    description: 'Answers from what the user said before, searching their past conversations.',
    default_model: 'local/echo',
    system_prompt:
      'You are a careful researcher. Before answering, search the user’s past conversations with search_memory and cite what you find.',
    tools: ['search_memory'],
  },
  {
    id: 'artist',
    name: 'Artist',
    description: 'Turns descriptions into images.',
    default_model: 'local/echo',
    system_prompt: `You are an artist. When the user describes a picture, call ${IMAGE_TOOL_NAME} with a vivid, precise prompt.`,
    tools: [IMAGE_TOOL_NAME],
  },
];

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const problem = (file: string, why: string) => new Error(`agents file ${file}: ${why}`);

/**
 * Reads and validates an agents file, whose default models must be chat models the registry
 * serves; every problem is an Error that names the file and the field or agent.
 */
export function loadAgentsFile(file: string, registry: ProviderRegistry): AgentDefinition[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw problem(file, messageOf(error));
  }
  const result = AgentsFile.safeParse(json);
  if (!result.success) {
    throw problem(file, result.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`).join('; '));
  }
  const seen = new Set<string>();
  for (const agent of result.data.agents) {
    if (seen.has(agent.id)) throw problem(file, `the id '${agent.id}' appears twice`);
    seen.add(agent.id);
    try {
      registry.resolve(agent.default_model, 'chat');
    } catch (error) {
      throw problem(file, `agent '${agent.id}': ${messageOf(error)}`);
    }
  }
  return result.data.agents;
}

/**
 * The agent catalog: the built-in agents, extended (and overridden by id) by the agents file
 * whose path is `file` — the server reads it from the environment variable `SVC_AGENTS`. A file
 * that cannot be read, is not valid, or names a default model this server does not serve for
 * chat stops the server at start with an error that says why.
 */
export function createAgentsService(deps: { registry: ProviderRegistry }, file: string | undefined) {
  const byId = new Map(builtInAgents.map((agent) => [agent.id, agent]));
  for (const agent of file ? loadAgentsFile(file, deps.registry) : []) byId.set(agent.id, agent);
  const present = (agent: AgentDefinition) => ({ object: 'agent' as const, ...agent });
  const all = [...byId.values()].map(present);

  return {
    list: () => ({ object: 'list' as const, data: all }),
    get(id: string) {
      const agent = byId.get(id);
      if (!agent) throw notFound(`There is no agent '${id}' (agents list shows them all).`, 'not_found', 'id');
      return present(agent);
    },
  };
}
