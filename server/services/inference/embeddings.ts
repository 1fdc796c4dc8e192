import type { z } from 'zod';
import type { EmbeddingsBody } from '../../../src/contract/schemas/inference.js';
import type { ProviderRegistry, ResolvedModel } from '../../providers/registry.js';
import type { ModelEntry, ProviderAdapter } from '../../providers/types.js';
import { boundsOf, inputBoundOf } from '../../providers/tokens.js';
import { invalidRequest } from '../../errors.js';
import type { Caller } from './caller.js';
import { microToCredits } from '../../store/money.js';
import { openMeter, type MeterOptions } from './meter.js';
import { routingOf, type Routing } from './routing/runner.js';
import { serveMetered } from './routing/served.js';
import type { CancelSignal } from '../../cancellation.js';

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

/** The embeddings of a target's provider, or a 400 when it has none. */
function embeddingsOf({ entry, adapter }: ResolvedModel): NonNullable<ProviderAdapter['embeddings']> {
  if (!adapter.embeddings) throw invalidRequest(`The provider '${entry.provider}' has no embeddings.`, 'model', 'model_not_supported');
  return adapter.embeddings.bind(adapter);
}

export function createEmbeddingsService(deps: MeterOptions & { registry: ProviderRegistry; routing?: Routing }) {
  const routing = deps.routing ?? routingOf(deps);
  return {
    async create(caller: Caller, body: Body, requestId: string, signal: CancelSignal) {
      const plan = routing.plan(deps.registry.requested([body.model], 'embeddings'), 'answer');
      for (const target of plan.targets) embeddingsOf(target);
      const inputs = inputsOf(body.input);
      // Texts by the model's counting (its tokenizer, else UTF-8 bytes); token ids are what they are.
      const inputOf = (entry: ModelEntry) =>
        inputBoundOf(({ counting }) => inputs.reduce<number>((sum, item) => sum + (typeof item === 'string' ? counting.text(item) : item.length), 0), boundsOf(entry));
      const [first, ...alternatives] = plan.targets.map(({ entry }) => ({ entry, input: inputOf(entry), maxOutputTokens: 0 }));
      if (!first) throw new Error('a plan has at least one target');
      const meter = await openMeter(deps, { caller, ...first, operation: 'embeddings', requestId, alternatives });
      const { value: result, target } = await serveMetered(routing, plan, meter, signal, caller.answerHeader, (t) =>
        embeddingsOf(t)({ model: t.entry.model, inputs, dimensions: body.dimensions, signal }),
      );
      try {
        const { chargedMicro } = await meter.settle({ inputTokens: result.inputTokens, outputTokens: 0 }, 'ok');
        return {
          object: 'list' as const,
          data: result.vectors.map((vector, index) => ({
            object: 'embedding' as const,
            index,
            embedding: body.encoding_format === 'base64' ? toBase64(vector) : vector,
          })),
          model: target.entry.id,
          usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens, cost: microToCredits(chargedMicro) },
        };
      } catch (error) {
        await meter.failed(error, signal);
        throw error;
      }
    },
  };
}
