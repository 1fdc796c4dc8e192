import { stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { z } from 'zod';

/**
 * The AI SDK's tool loop as its users write it: `streamText` with one `get_weather` tool that
 * answers 'sunny', up to two steps. Returns the tool's calls, the streamed text and the usage.
 */
export async function runWeatherTool(model: LanguageModel, prompt: string) {
  const calls: unknown[] = [];
  const result = streamText({
    model,
    prompt,
    tools: {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async (input) => {
          calls.push(input);
          return 'sunny';
        },
      }),
    },
    stopWhen: stepCountIs(2),
    maxRetries: 0,
  });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  return { calls, text, usage: await result.totalUsage };
}
