import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createProviderRegistry } from '../../server/providers/registry.js';
import { builtInAgents, createAgentsService } from '../../server/services/agents.js';
import { VERSION } from '../../src/version.js';
import { API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-agents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function agentsFile(content: unknown): string {
  const file = join(dir, `agents-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** GET under /api/v1 that must answer 200; returns the body. */
async function getOk(t: TestServer, path: string, key?: string) {
  const response = await t.call('GET', `${API}${path}`, { key });
  expectStatus(response, 200);
  return response.body;
}

const poet = {
  id: 'poet',
  name: 'Poet',
  description: 'Writes verse.',
  default_model: 'local/echo',
  system_prompt: 'Answer in rhyme.',
  tools: [],
};

describe('agents', () => {
  const t = useTestServer();

  it('lists the shipped agents', async () => {
    const body = await getOk(t, '/agents');
    expect(body.object).toBe('list');
    expect(body.data.map((agent: { id: string }) => agent.id)).toEqual(['assistant', 'researcher', 'artist']);
    for (const agent of body.data) {
      expect(agent).toEqual({
        id: expect.any(String),
        object: 'agent',
        name: expect.any(String),
        description: expect.any(String),
        default_model: 'local/echo',
        system_prompt: expect.any(String),
        tools: expect.any(Array),
      });
    }
  });

  it('gets one agent by id, with its tools', async () => {
    expect(await getOk(t, '/agents/researcher', t.testKey)).toMatchObject({ id: 'researcher', object: 'agent', tools: ['search_memory'] });
    expect((await getOk(t, '/agents/artist')).tools).toEqual(['generate_image']);
  });

  it('answers 404 for an unknown agent', async () => {
    expectApiError(await t.call('GET', `${API}/agents/nobody`), 404, { type: 'not_found', param: 'id' });
  });

  it('requires authentication', async () => {
    expectApiError(await t.call('GET', `${API}/agents`, { key: null }), 401);
  });
});

describe('agents file (SVC_AGENTS)', () => {
  const registry = createProviderRegistry();
  afterEach(() => vi.unstubAllEnvs());

  it('adds agents to the shipped ones and replaces one with the same id', () => {
    const assistant = { ...poet, id: 'assistant', name: 'My assistant' };
    const service = createAgentsService({ registry }, agentsFile({ agents: [poet, assistant] }));
    expect(service.list().data.map((agent) => agent.id)).toEqual(['assistant', 'researcher', 'artist', 'poet']);
    expect(service.get('assistant').name).toBe('My assistant');
    expect(service.get('poet')).toEqual({ object: 'agent', ...poet });
  });

  it('defaults tools to none', () => {
    const { tools: _tools, ...withoutTools } = poet;
    expect(createAgentsService({ registry }, agentsFile({ agents: [withoutTools] })).get('poet').tools).toEqual([]);
  });

  it('without a file, serves the shipped agents', () => {
    expect(createAgentsService({ registry }, undefined).list().data).toHaveLength(builtInAgents.length);
  });

  it.each([
    ['a missing file', () => join(dir, 'missing.json'), /missing\.json/],
    ['bad JSON', () => agentsFile('{not json'), /agents file .*JSON/],
    ['a missing field', () => agentsFile({ agents: [{ ...poet, name: undefined }] }), /agents\.0\.name/],
    ['an unknown field', () => agentsFile({ agents: [{ ...poet, color: 'red' }] }), /color/],
    ['a bad id', () => agentsFile({ agents: [{ ...poet, id: 'Bad Id' }] }), /agents\.0\.id/],
    ['an id twice', () => agentsFile({ agents: [poet, poet] }), /'poet' appears twice/],
    ['a model not served', () => agentsFile({ agents: [{ ...poet, default_model: 'local/nope' }] }), /agent 'poet'.*local\/nope/],
    ['no agents list', () => agentsFile([poet]), /agents file/],
  ])('refuses %s with an error that says why', (_what, file, message) => {
    expect(() => createAgentsService({ registry }, file())).toThrow(message);
  });

  it('is read from SVC_AGENTS when the server starts, and a bad file stops the start', async () => {
    const t = await startTestServer({ env: { SVC_AGENTS: agentsFile({ agents: [poet] }) } });
    try {
      expect((await getOk(t, '/agents/poet')).system_prompt).toBe('Answer in rhyme.');
    } finally {
      await t.close();
    }
    const bad = agentsFile({ agents: [{ ...poet, tools: 'all' }] });
    await expect(startTestServer({ env: { SVC_AGENTS: bad } })).rejects.toThrow(/agents file .*agents\.0\.tools/);
  });
});

describe('config list', () => {
  const t = useTestServer();

  it('answers the public configuration', async () => {
    expect(await getOk(t, '/config')).toEqual({
      version: VERSION,
      default_chat_model: 'local/echo',
      default_embedding_model: 'local/embed',
      credit_value_usd: 0.01,
      daily_claim_credits: 10,
      providers: ['local'],
      payment_processor: 'sandbox',
      caller: { kind: 'api_key', app_uuid: t.appUuid, role: 'admin', livemode: true },
      limits: {
        limit_default: 50,
        limit_max: 100,
        app_users_limit_max: 200,
        models_page_size_default: 100,
        models_page_size_max: 200,
        max_body_bytes: 1024 * 1024,
      },
    });
  });

  it('tells a test key it is in test mode', async () => {
    const answer = await t.call('GET', `${API}/config`, { key: t.testKey });
    expect(answer.status).toBe(200);
    expect((answer.body as { caller: unknown }).caller).toEqual({ kind: 'api_key', app_uuid: t.appUuid, role: 'inference', livemode: false });
  });

  it('names default models the server serves', async () => {
    const body = await getOk(t, '/config');
    const models = (await getOk(t, '/models')).data.map((model: { id: string }) => model.id);
    expect(models).toContain(body.default_chat_model);
    expect(models).toContain(body.default_embedding_model);
  });
});

describe('tasks list', () => {
  const t = useTestServer();

  it('lists the tasks with reward and requirement, none claimed yet', async () => {
    expect(await getOk(t, '/tasks')).toEqual({
      object: 'list',
      data: [
        { type: 'first_chat', title: expect.any(String), reward_credits: 2, requirement: 'chat_requests ≥ 1', claimed: false },
        { type: 'save_first_memory', title: expect.any(String), reward_credits: 5, requirement: 'memories ≥ 1', claimed: false },
        { type: 'save_ten_memories', title: expect.any(String), reward_credits: 20, requirement: 'memories ≥ 10', claimed: false },
      ],
    });
  });

  it('requires authentication', async () => {
    expectApiError(await t.call('GET', `${API}/tasks`, { key: null }), 401);
  });
});
