import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embed, streamText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { API, useTestServer } from '../helpers/api.js';

const t = useTestServer();

describe('the openai SDK runTools helper', () => {
  it('runs a tool round trip: the model calls the tool, the SDK runs it, the model answers with its result', async () => {
    const sdk = new OpenAI({ apiKey: t.liveKey, baseURL: `${t.url}${API}`, maxRetries: 0 });
    const calls: unknown[] = [];
    const runner = sdk.chat.completions.runTools({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'What is the weather?\n!tool get_weather {"city":"Oslo"}' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            function: (args: { city: string }) => {
              calls.push(args);
              return `sunny in ${args.city}`;
            },
            parse: JSON.parse,
          },
        },
      ],
    });
    const answer = await runner.finalContent();
    expect(calls).toEqual([{ city: 'Oslo' }]);
    expect(answer).toContain('sunny in Oslo');
  });
});

describe('the Vercel AI SDK (openai-compatible provider)', () => {
  const provider = () => createOpenAICompatible({ name: 'svc', baseURL: `${t.url}${API}`, apiKey: t.liveKey });

  it('streamText', async () => {
    const result = streamText({ model: provider().chatModel('local/echo'), prompt: 'stream text through the AI SDK' });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toContain('stream text through the AI SDK');
  });

  it('embed', async () => {
    const { embedding } = await embed({ model: provider().embeddingModel('local/embed'), value: 'embed through the AI SDK' });
    expect(embedding).toHaveLength(384);
  });
});
