import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { apiEmbedder } from '../../src/memory/index.js';
import { useTestServer } from '../helpers/api.js';
import { useMemoryFiles } from './helpers.js';

const t = useTestServer();
const files = useMemoryFiles();

describe('apiEmbedder', () => {
  it('embeds through POST /embeddings, one vector per text, in order', async () => {
    const embed = apiEmbedder(createClient({ baseUrl: t.url, apiKey: t.liveKey }));
    const vectors = await embed(['the cat sleeps on my sofa', 'quarterly revenue grew'], 'local/embed');
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(384);
  });

  it('gives memory a working search against the real API', async () => {
    const embed = apiEmbedder(createClient({ baseUrl: t.url, apiKey: t.liveKey }));
    const { memory } = files.open({ embed, embeddingModel: 'local/embed' });
    const conversation = memory.conversations.create();
    memory.messages.append(conversation.id, { role: 'user', content: 'my cat likes to sleep on the sofa' });
    memory.messages.append(conversation.id, { role: 'user', content: 'quarterly revenue grew by four percent' });
    const hits = await memory.searchMessages('where does the cat sleep', { minSimilarity: 0 });
    expect(hits[0]?.content).toBe('my cat likes to sleep on the sofa');
  });

  it('turns an API error into a rejection', async () => {
    const embed = apiEmbedder(createClient({ baseUrl: t.url, apiKey: 'svc_live_wrong' }));
    await expect(embed(['hello'], 'local/embed')).rejects.toThrow();
  });
});
