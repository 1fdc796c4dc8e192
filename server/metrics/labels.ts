/**
 * Label values, bounded: a scrape must not grow with what callers send. A model is named only
 * when the server serves it (a refused request's row keeps whatever `model` the body said), an
 * error code only when it looks like one.
 */

/** Whether the server serves `<provider>/<model>`, and whether it knows the provider. */
export interface KnownTargets {
  hasModel(id: string): boolean;
  hasProvider(provider: string): boolean;
}

export const UNKNOWN = 'unknown';

/** The provider and model labels of a row or an attempt: the served ones as they are, others `unknown`. */
export function targetLabels(known: KnownTargets, provider: string, model: string) {
  if (known.hasModel(`${provider}/${model}`)) return { gen_ai_provider_name: provider, gen_ai_request_model: model };
  return { gen_ai_provider_name: known.hasProvider(provider) ? provider : UNKNOWN, gen_ai_request_model: UNKNOWN };
}

/**
 * OpenTelemetry's `gen_ai.operation.name` of one of our operations: embeddings, or chat (chat
 * completions, the Messages API and the Responses API are all chat turns).
 */
export const genAiOperation = (operation: string) => (operation.startsWith('embeddings') ? 'embeddings' : 'chat');

const CODE = /^[a-z0-9][a-z0-9_.-]{0,47}$/;

/** An error code or class as a label: codes are snake_case words; anything else is `other`. */
export const codeLabel = (code: string | null) => (code === null ? '' : CODE.test(code) ? code : 'other');

/** What a registry serves, as sets (it does not change while the server runs). */
export function knownTargets(registry: { models(): readonly { id: string }[]; providerIds(): readonly string[] }): KnownTargets {
  const models = new Set(registry.models().map((model) => model.id));
  const providers = new Set(registry.providerIds());
  return { hasModel: (id) => models.has(id), hasProvider: (provider) => providers.has(provider) };
}
