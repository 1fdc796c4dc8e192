import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { API, expectApiError, expectStatus, useTestServer } from '../helpers/api.js';

const t = useTestServer();
const embed = (body: Record<string, unknown>) => t.call('POST', `${API}/embeddings`, { body: { model: 'local/embed', ...body } });

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

describe('POST /embeddings with local/embed', () => {
  it('embeds a string into 384 L2-normalised dimensions, with usage', async () => {
    const answer = await embed({ input: 'the quick brown fox' });
    expectStatus(answer, 200);
    expect(answer.body).toMatchObject({ object: 'list', model: 'local/embed' });
    const vector: number[] = answer.body.data[0].embedding;
    expect(vector).toHaveLength(384);
    expect(cosine(vector, vector)).toBeCloseTo(1, 5);
    expect(answer.body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('takes a list of strings, token ids, and lists of token ids, in order', async () => {
    const list = await embed({ input: ['one', 'two', 'three'] });
    expect(list.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1, 2]);
    expect((await embed({ input: [1, 2, 3] })).body.data).toHaveLength(1);
    expect((await embed({ input: [[1, 2], [3]] })).body.data).toHaveLength(2);
  });

  it('honours dimensions', async () => {
    const answer = await embed({ input: 'short', dimensions: 64 });
    expect(answer.body.data[0].embedding).toHaveLength(64);
  });

  it('gives similar texts a higher similarity than unrelated ones', async () => {
    const answer = await embed({
      input: ['my cat likes to sleep on the sofa', 'the cat sleeps on my sofa', 'quarterly revenue grew by four percent'],
    });
    const [a, b, c] = answer.body.data.map((d: { embedding: number[] }) => d.embedding);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.2);
  });

  it('encodes base64 as little-endian float32 of the same vector', async () => {
    const float = await embed({ input: 'encode me' });
    const base64 = await embed({ input: 'encode me', encoding_format: 'base64' });
    const bytes = Buffer.from(base64.body.data[0].embedding, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(decoded).toHaveLength(384);
    decoded.forEach((value, i) => expect(value).toBeCloseTo(float.body.data[0].embedding[i], 6));
  });

  it('works through the openai SDK (which asks for base64 by default)', async () => {
    const sdk = new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
    const result = await sdk.embeddings.create({ model: 'local/embed', input: ['hello world', 'hello there'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]?.embedding).toHaveLength(384);
    expect(cosine(result.data[0]!.embedding, result.data[0]!.embedding)).toBeCloseTo(1, 4);
  });
});

describe('POST /embeddings: bad input', () => {
  it.each([
    ['an empty string', { input: '' }, 'input'],
    ['an empty list', { input: [] }, 'input'],
    ['dimensions 0', { input: 'x', dimensions: 0 }, 'dimensions'],
    ['dimensions -3', { input: 'x', dimensions: -3 }, 'dimensions'],
    ['an unknown encoding', { input: 'x', encoding_format: 'hex' }, 'encoding_format'],
  ])('%s is a 400 naming the field', async (_name, body, param) => {
    const answer = await embed(body);
    expectApiError(answer, 400);
    expect(answer.body.error.param).toMatch(new RegExp(`^${param}`));
  });

  it('a chat model cannot embed', async () => {
    expectApiError(await t.call('POST', `${API}/embeddings`, { body: { model: 'local/echo', input: 'x' } }), 400, {
      code: 'model_not_supported',
      param: 'model',
    });
  });
});
