// `npm run bench`: bundles the TypeScript benchmarks in test/bench and runs them.
import { build } from 'esbuild';
import { pathToFileURL } from 'node:url';

await build({
  entryPoints: ['test/bench/index.ts'],
  outfile: 'dist/bench/index.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  packages: 'external',
  logLevel: 'warning',
});
await import(pathToFileURL('dist/bench/index.js').href);
