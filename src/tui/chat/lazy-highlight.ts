import type { HighlightOptions } from 'cli-highlight';

/**
 * marked-terminal's code highlighter, loaded on the first code block instead of at start:
 * highlight.js registers its ~190 languages when it loads, about 50 ms of every chat start.
 * scripts/build.mjs points marked-terminal's `cli-highlight` here; from source it is not used.
 */
export function highlight(code: string, options?: HighlightOptions): string {
  // A require, not an import: the bundler keeps a required CommonJS module uninitialised until
  // this line runs.
  const real = require('cli-highlight') as typeof import('cli-highlight');
  return real.highlight(code, options);
}
