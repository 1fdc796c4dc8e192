import OpenAI from 'openai';
import { asProblem, run } from './problem.js';
import { loadDotEnv, platformSettings, type PlatformSettings } from './settings.js';

const DEFAULT_PROMPT = 'Say hello in one short sentence.';

/** Streams the answer to `prompt` to stdout as it arrives. */
async function ask(settings: PlatformSettings, prompt: string): Promise<void> {
  // The platform speaks the OpenAI API, so the official SDK works as is: only the base URL changes.
  const client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.apiUrl });
  const stream = await client.chat.completions.create({
    model: settings.model,
    messages: [{ role: 'user', content: prompt }],
    stream: true,
  });
  for await (const chunk of stream) {
    process.stdout.write(chunk.choices[0]?.delta.content ?? '');
  }
  process.stdout.write('\n');
}

await run(async () => {
  loadDotEnv();
  const settings = platformSettings(process.env);
  await ask(settings, process.argv.slice(2).join(' ') || DEFAULT_PROMPT).catch((error: unknown) => {
    throw asProblem(error, settings.apiUrl);
  });
});
