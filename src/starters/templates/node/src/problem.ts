import OpenAI from 'openai';

/** Something the user can fix, such as a missing setting or a platform that is not running: the message says how. */
export class Problem extends Error {}

/** The platform's refusals, and a platform that cannot be reached, as a Problem; anything else as it is. */
export function asProblem(error: unknown, apiUrl: string): unknown {
  if (error instanceof OpenAI.APIConnectionError) {
    return new Problem(`No platform answered at ${apiUrl}. Start one with \`svc serve\`, or set SVC_API_URL.`);
  }
  if (error instanceof OpenAI.APIError) return new Problem(`The platform refused the request: ${error.message}`);
  return error;
}

/** Runs the program. A Problem ends it with its message and exit code 1; anything else is a bug and keeps its stack. */
export async function run(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    console.error(error.message);
    process.exitCode = 1;
  }
}
