import { expect } from 'vitest';

/** Everything an adapter's stream yields, to its end (or its error). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** What an ApiError an adapter throws must look like (a string: part of its message). */
export const apiError = (status: number, code: string, message: string | RegExp) => ({
  name: 'ApiError',
  status,
  code,
  message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
});
