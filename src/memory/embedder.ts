import type { createClient } from '../client/client.js';
import { clientOperations } from '../client/operation-refs.js';
import { EmbeddingList } from '../contract/schemas/inference.js';
import type { EmbedFunction } from './memory.js';

/** An `embed` function for `openMemory` that calls the platform's `POST /embeddings`. */
export function apiEmbedder(client: Pick<ReturnType<typeof createClient>, 'call'>): EmbedFunction {
  return async (texts, model) => {
    const answer = EmbeddingList.parse(await client.call(clientOperations.embeddings, { body: { model, input: texts } }));
    const vectors: number[][] = [];
    for (const item of answer.data) {
      if (typeof item.embedding === 'string') throw new Error('expected float embeddings, got base64');
      vectors[item.index] = item.embedding;
    }
    return vectors;
  };
}
