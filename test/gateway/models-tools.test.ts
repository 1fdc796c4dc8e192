import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';

const t = useTestServer({ providers: [pricedProvider()] });

describe('GET /models', () => {
  it('lists every servable model with provider, context length and prices', async () => {
    const answer = await t.call('GET', `${API}/models`);
    expectStatus(answer, 200);
    expect(answer.body.object).toBe('list');
    expect(answer.body.data.map((m: { id: string }) => m.id)).toEqual(['local/echo', 'local/embed', 'paid/echo', 'paid/embed']);
    expect(answer.body.data.find((m: { id: string }) => m.id === 'paid/echo')).toMatchObject({
      object: 'model',
      provider: 'paid',
      owned_by: 'paid',
      context_length: 8192,
      pricing: { input_per_million_usd: 1000, output_per_million_usd: 2000 },
    });
    expect(answer.body.next_page_token).toBeNull();
  });

  it('filters by provider', async () => {
    const answer = await t.call('GET', `${API}/models?provider=paid`);
    expect(answer.body.data.map((m: { id: string }) => m.id)).toEqual(['paid/echo', 'paid/embed']);
  });

  it('pages with an opaque token until the last page', async () => {
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const query: string = token ? `&page_token=${encodeURIComponent(token)}` : '';
      const page = await t.call('GET', `${API}/models?page_size=3${query}`);
      expectStatus(page, 200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((m: { id: string }) => m.id));
      token = page.body.next_page_token;
    } while (token);
    expect(seen).toEqual(['local/echo', 'local/embed', 'paid/echo', 'paid/embed']);
  });

  it('refuses a page token it did not issue, or one issued for another filter', async () => {
    expectApiError(await t.call('GET', `${API}/models?page_token=garbage`), 400, { param: 'page_token' });
    const first = await t.call('GET', `${API}/models?page_size=1`);
    const token = encodeURIComponent(first.body.next_page_token);
    expectApiError(await t.call('GET', `${API}/models?provider=paid&page_token=${token}`), 400, { param: 'page_token' });
  });

  it('bounds page_size (1 to 200)', async () => {
    expectApiError(await t.call('GET', `${API}/models?page_size=0`), 400, { param: 'page_size' });
    expectApiError(await t.call('GET', `${API}/models?page_size=201`), 400, { param: 'page_size' });
  });

  it('works through the openai SDK', async () => {
    const sdk = new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of sdk.models.list()) ids.push(model.id);
    expect(ids).toContain('local/echo');
  });
});

describe('GET /tools', () => {
  it('lists the platform’s tools in the OpenAI function-tool format, the image tool included', async () => {
    const answer = await t.call('GET', `${API}/tools`);
    expectStatus(answer, 200);
    const image = answer.body.data.find((tool: { function: { name: string } }) => tool.function.name === 'generate_image');
    expect(image).toMatchObject({ type: 'function', function: { parameters: { type: 'object', properties: { model: { type: 'string' } } } } });
  });
});
