import type { z } from 'zod';
import type { EmbeddingsBody } from '../../../src/contract/schemas/inference.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { boundsOf } from '../../providers/tokens.js';
import { invalidRequest } from '../../errors.js';
import type { Caller } from './caller.js';
import { microToCredits } from '../../store/money.js';
import { openMeter, type MeterOptions } from './meter.js';

type Body = z.output<typeof EmbeddingsBody>;

/** The four input forms as a list: text, token ids, a list of texts, a list of token lists. */
function inputsOf(input: Body['input']): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (input.every((item) => typeof item === 'number')) return [input as number[]];
  return input as (string | number[])[];
}

/** Little-endian float32, as OpenAI's `encoding_format: base64`. */
export function toBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

export function createEmbeddingsService(deps: MeterOptions & { registry: ProviderRegistry }) {
  return {
    async create(caller: Caller, body: Body, requestId: string, signal: AbortSignal) {
      const { entry, adapter } = deps.registry.resolve(body.model, 'embeddings');
      if (!adapter.embeddings) throw invalidRequest(`The provider '${entry.provider}' has no embeddings.`, 'model', 'model_not_supported');
      const inputs = inputsOf(body.input);
      // Texts by the model's counting (its tokenizer, else UTF-8 bytes); token ids are what they are.
      const { counting } = boundsOf(entry);
      const inputTokens = inputs.reduce<number>((sum, item) => sum + (typeof item === 'string' ? counting.text(item) : item.length), 0);
      const meter = await openMeter(deps, { caller, entry, operation: 'embeddings', requestId, inputTokens, maxOutputTokens: 0 });
      try {
        const result = await adapter.embeddings({ model: entry.model, inputs, dimensions: body.dimensions, signal });
        const { chargedMicro } = await meter.settle({ inputTokens: result.inputTokens, outputTokens: 0 }, 'ok');
        return {
          object: 'list' as const,
          data: result.vectors.map((vector, index) => ({
            object: 'embedding' as const,
            index,
            embedding: body.encoding_format === 'base64' ? toBase64(vector) : vector,
          })),
          model: entry.id,
          usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens, cost: microToCredits(chargedMicro) },
        };
      } catch (error) {
        await meter.failed(error, signal);
        throw error;
      }
    },
  };
}
